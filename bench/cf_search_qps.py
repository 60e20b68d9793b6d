"""Queries per second of the Confident Fools `web_search` engine (SQLite FTS5, BM25) on this machine.

Queries are the built-in items' questions and gold queries, cycled; the built-in corpus is indexed
in memory. `--scale N` adds N filler articles (words drawn, seeded, from the built-in corpus) to show
how the rate holds on a larger corpus.

    python bench/cf_search_qps.py
    python bench/cf_search_qps.py --scale 20000 --queries 5000
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from harnessx.cf.engine import FTS5Engine
from harnessx.cf.generate import build
from harnessx.cf.items import Article


def filler(articles: list[Article], n: int, seed: int = 0) -> list[Article]:
    rng = random.Random(seed)
    words = [w for a in articles for w in (a.title + " " + a.text).split()]
    return [Article(id=f"filler-{i}", title=" ".join(rng.choices(words, k=6)), date="2026-09-01",
                    url=f"https://news.example/filler/{i}", text=" ".join(rng.choices(words, k=60))) for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--scale", type=int, default=0, help="extra background articles (0: built-in corpus only)")
    args = parser.parse_args()
    suite = build()
    t0 = time.perf_counter()
    engine = FTS5Engine(list(suite.articles) + filler(list(suite.articles), args.scale))
    index_s = time.perf_counter() - t0
    queries = [q for item in suite.items for q in (item.question, item.query) if q]
    latencies = []
    t0 = time.perf_counter()
    for i in range(args.queries):
        start = time.perf_counter()
        engine.search(queries[i % len(queries)], args.k)
        latencies.append(time.perf_counter() - start)
    wall = time.perf_counter() - t0
    ms = sorted(1000 * x for x in latencies)
    print(f"corpus: {len(engine)} articles (indexed in {index_s * 1000:.0f} ms), engine {engine.name}, top-{args.k}")
    print(f"{args.queries} queries in {wall:.3f} s: {args.queries / wall:,.0f} queries/s; latency median "
          f"{statistics.median(ms):.3f} ms, p95 {ms[int(0.95 * len(ms)) - 1]:.3f} ms, max {ms[-1]:.3f} ms")


if __name__ == "__main__":
    main()
