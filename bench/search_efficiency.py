"""Search efficiency on the simulator: the paper's protocol vs paired racing vs GEPA, side by side.

- paper:  `greedy` acceptance, every proposal fully evaluated (R0 + rounds x proposals);
- paired: the default rule (paired test + Holm + racing), same proposer and shape, 1 rollout per task;
- paired-eN: the same with N rollouts per task (`--paired-epochs`), i.e. more power per candidate;
- gepa:   gepa.optimize through the HarnessX adapter with the paper protocol's rollout budget.

For each, over several search seeds: rollouts spent and the ground-truth joint score (the
simulator's Monte-Carlo expectation, fresh seeds) of the selected harness, and ratios to the paper.

    python bench/search_efficiency.py [--env toy|retail] [--seeds 3] [--gt-epochs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.envs.registry import get_suite
from harnessx.envs.toy import ToySuite
from harnessx.models.client import ModelClient
from harnessx.search import Arena, Search, SearchConfig, get_objective, load_space
from harnessx.search.gepa import optimize_with_gepa
from harnessx.sim import ground_truth


def suite_for(args):
    return ToySuite(n_sources=args.sources) if args.env == "toy" else get_suite(args.env)


def run_loop(accept: str, seed: int, args, tmp: str, epochs: int = 1) -> tuple[int, object]:
    config = SearchConfig(objective=args.objective, env=args.env, model=args.model, accept=accept, seed=seed,
                          rounds=args.rounds, proposals=args.proposals, epochs=epochs, runs_dir=tmp,
                          name=f"{accept}-e{epochs}-{seed}", tracking_uri=None)
    result = asyncio.run(Search(config, suite=suite_for(args)).run())
    return result.summary["rollouts"], result.selected.harness


def run_gepa(budget: int, seed: int, args, tmp: str) -> tuple[int, object]:
    suite = suite_for(args)
    runner = Runner(suite, ModelClient(args.model), RolloutCache(f"{tmp}/gepa-{seed}"), concurrency=16)
    arena = Arena(runner, suite.tasks("search"), get_objective(args.objective), [seed * 1000], order_seed=seed)
    result, harnesses = optimize_with_gepa(arena, load_space().initial(), load_space(), budget, seed=seed)
    return arena.rollouts, harnesses[result.best_idx]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="toy")
    parser.add_argument("--sources", type=int, default=12, help="toy only: 3 tasks per source")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--proposals", type=int, default=3)
    parser.add_argument("--objective", default="joint")
    parser.add_argument("--model", default="sim/baseline")
    parser.add_argument("--gt-epochs", type=int, default=10)
    parser.add_argument("--paired-epochs", type=int, default=3)
    args = parser.parse_args()
    profile = args.model.removeprefix("sim/")
    started = time.monotonic()
    epochs_row = f"paired-e{args.paired_epochs}"
    rows: dict[str, list[tuple[int, float]]] = {"paper": [], "paired": [], epochs_row: [], "gepa": []}
    truth_cache: dict[str, float] = {}

    def truth(harness) -> float:
        if harness.hash not in truth_cache:
            gt = ground_truth(harness, suite_for(args), profile, epochs=args.gt_epochs, seed0=50_000)
            truth_cache[harness.hash] = getattr(gt, "strict_sa" if args.objective == "sa" else "joint").mean
        return truth_cache[harness.hash]

    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            spent, chosen = run_loop("greedy", seed, args, tmp)
            rows["paper"].append((spent, truth(chosen)))
            budget = spent
            spent, chosen = run_loop("paired", seed, args, tmp)
            rows["paired"].append((spent, truth(chosen)))
            spent, chosen = run_loop("paired", seed, args, tmp, epochs=args.paired_epochs)
            rows[epochs_row].append((spent, truth(chosen)))
            spent, chosen = run_gepa(budget, seed, args, tmp)
            rows["gepa"].append((spent, truth(chosen)))
    r0 = truth(load_space().initial())
    paper_spent = statistics.mean(s for s, _ in rows["paper"])
    paper_gain = statistics.mean(q for _, q in rows["paper"]) - r0
    print(f"search efficiency: env {args.env}, objective {args.objective}, model {args.model} (simulated), "
          f"R0 + {args.rounds} x {args.proposals}, {args.seeds} search seeds, ground truth over {args.gt_epochs} epochs")
    print(f"  ground truth of R0: {r0:.3f}")
    print(f"  {'strategy':10} {'rollouts':>9} {'GT selected':>12} {'gain vs R0':>11} {'rollouts/paper':>15} "
          f"{'gain/paper':>11} {'gain per 1k rollouts':>21}")
    for name, data in rows.items():
        spent = statistics.mean(s for s, _ in data)
        quality = statistics.mean(q for _, q in data)
        gain = quality - r0
        ratio_gain = gain / paper_gain if paper_gain else float("nan")
        print(f"  {name:10} {spent:9.0f} {quality:12.3f} {gain:+11.3f} {spent / paper_spent:15.2f} "
              f"{ratio_gain:11.2f} {1000 * gain / spent:21.3f}")
    print(f"  wall {time.monotonic() - started:.0f}s")


if __name__ == "__main__":
    main()
