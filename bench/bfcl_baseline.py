"""BFCL-only baseline table: BFCL's own accuracy next to HarnessX's solve (and strict SA).

Runs one harness on every entry of the chosen BFCL multi-turn categories (not the search splits),
recomputes BFCL's accuracy from each trajectory with BFCL's checker, and prints a Markdown table
with k/n and Wilson 95% intervals, plus how often HarnessX's native reward equals BFCL's verdict.

    python bench/bfcl_baseline.py                                   # A1 on sim/baseline, all 200 per category
    python bench/bfcl_baseline.py --model openai/gpt-4.1-mini --categories base --limit 50
"""

from __future__ import annotations

import argparse
import asyncio
import time

from harnessx.agent.runner import Runner
from harnessx.envs.bfcl.baseline import Row, bfcl_accuracy, markdown
from harnessx.envs.bfcl.build import entry_task
from harnessx.envs.bfcl.data import load_category
from harnessx.envs.registry import get_suite
from harnessx.evaluation import evaluate
from harnessx.harness.presets import load_preset
from harnessx.models.client import ModelClient


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--harness", default="A1")
    parser.add_argument("--model", default="sim/baseline")
    parser.add_argument("--categories", nargs="+", default=["base", "miss_func", "miss_param"])
    parser.add_argument("--limit", type=int, default=0, help="first N entries per category (0 = all)")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    suite = get_suite("bfcl")
    model = ModelClient(args.model)
    rows, started = [], time.monotonic()
    for category in args.categories:
        entries = list(load_category(category))[: args.limit or None]
        tasks = [entry_task(e, "search") for e in entries]
        runner = Runner(suite, model, cache=None, concurrency=args.concurrency)
        ev = asyncio.run(evaluate(runner, load_preset(args.harness), tasks, [0]))
        row = Row(category, metric="solve" if category in ("base", "long_context") else "strict SA")
        by_id = {t.id: (t, e) for t, e in zip(tasks, entries)}
        for result, score in zip(ev.results, ev.scores):
            if not score.valid:
                continue
            _, entry = by_id[result.task_id]
            verdict = bfcl_accuracy(entry, runner.trajectory(result))
            row.n += 1
            row.bfcl += verdict
            row.harnessx += bool(score.success)
            row.agree += verdict == (result.reward == 1.0)
        rows.append(row)
    print(f"harness {args.harness}, model {model.describe()}, 1 seed, "
          f"{sum(r.n for r in rows)} rollouts, {time.monotonic() - started:.0f} s\n")
    print(markdown(rows))


if __name__ == "__main__":
    main()
