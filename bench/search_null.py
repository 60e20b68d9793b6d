"""Null test of the acceptance rules: every proposal is a copy of the incumbent.

A copy differs only by a neutral revision note (no cue of the simulated agent), so it behaves
exactly like the incumbent. The simulator's default pairing (common random numbers) would give a
copy the incumbent's very outcomes, so the null runs on the profile's `pairing: text` variant:
each copy draws its own rollouts, as a real model's would. Any acceptance is a false accept. Per
replicate (rollout seed): R0 + 8 rounds x 3 copies, one rollout per task, the paper's shape;
`greedy`, `paired` and `sequential` (its default, screen design) judge the same copies on a shared
rollout cache.

    python bench/search_null.py [--seeds 20] [--sources 10] [--model sim/baseline]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

from harnessx.stats import wilson

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.envs.toy import ToySuite
from harnessx.harness import Harness
from harnessx.models.client import ModelClient
from harnessx.search import Arena, Greedy, PairedRacing, get_objective, load_space
from harnessx.search.sequential import Sequential
from harnessx.sim import load_profile, register_profile


def text_paired(model: str) -> str:
    """`sim/<p>-text`: the profile with draws seeded on the harness text (every copy re-draws)."""
    profile = load_profile(model.removeprefix("sim/"))
    return register_profile(profile.model_copy(update={"name": f"{profile.name}-text", "pairing": "text"}))


def copies(incumbent: Harness, round_no: int, k: int) -> list[Harness]:
    text = incumbent.text("system_prompt").rstrip()
    return [incumbent.with_component("system_prompt", f"{text}\n(Revision note {round_no}.{slot}.)\n")
            for slot in range(k)]


async def replicate(seed: int, args, cache_dir: str) -> dict[str, int]:
    suite = ToySuite(n_sources=args.sources)
    runner = Runner(suite, ModelClient(text_paired(args.model)), RolloutCache(cache_dir), concurrency=16)
    accepted = {}
    for rule in (Greedy(), PairedRacing(), Sequential()):
        arena = Arena(runner, suite.tasks("search"), get_objective(args.objective), [seed], order_seed=seed)
        incumbent, hits = load_space().initial(), 0
        for round_no in range(1, args.rounds + 1):
            verdicts = await rule.judge(incumbent, copies(incumbent, round_no, args.proposals), arena)
            winner = next((v.evaluation.harness for v in verdicts if v.accepted), None)
            if winner is not None:
                incumbent, hits = winner, hits + 1
        accepted[rule.name] = hits
    return accepted


def run_replicate(job: tuple) -> dict[str, int]:
    return asyncio.run(replicate(*job))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--sources", type=int, default=10, help="toy sources: 3 tasks each (n = 3 x sources)")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--proposals", type=int, default=3)
    parser.add_argument("--objective", default="joint")
    parser.add_argument("--model", default="sim/baseline")
    parser.add_argument("--workers", type=int, default=2, help="replicates run in this many processes")
    args = parser.parse_args()
    started = time.monotonic()
    totals = {"greedy": 0, "paired": 0, "sequential": 0}
    with tempfile.TemporaryDirectory() as tmp, ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(run_replicate, [(seed, args, f"{tmp}/{seed}") for seed in range(args.seeds)]):
            for name, hits in result.items():
                totals[name] += hits
    rounds = args.seeds * args.rounds
    print(f"null test: {args.seeds} replicates x {args.rounds} rounds x {args.proposals} copies, "
          f"n = {3 * args.sources} toy tasks, 1 rollout each, objective {args.objective}, model {args.model} "
          f"(simulated, pairing: text)")
    for name, hits in totals.items():
        lo, hi = wilson(hits, rounds)
        print(f"  {name:10} accepted a copy in {hits}/{rounds} rounds = {hits / rounds:.3f} (95% CI {lo:.3f}-{hi:.3f})")
    ratio = totals["greedy"] / max(totals["paired"], 1)
    print(f"  false-accept ratio greedy/paired = {ratio:.1f}x (paired target <= 0.05 per round)")
    print(f"  wall {time.monotonic() - started:.0f}s")


if __name__ == "__main__":
    main()
