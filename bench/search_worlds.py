"""The ground truth of a simulated world: what each single edit from R0 truly does, and the best
harness reachable by edits, by the simulator's Monte Carlo.

For a suite and a profile (`sim/baseline` = today's world, `sim/harmful` = edits can hurt): every
clause edit of the search space and a few values of each switch group, applied to R0, evaluated
with R0's epoch seeds (common random numbers: the paired difference per epoch has a small SE).
An edit is *harmful* when its joint difference is below -2 SE, *helpful* above +2 SE, else
*neutral*. Then a greedy combination on ground truth (apply the single edits that help, the
helpful ones on top of each other, best first, keeping each that still helps) gives the best
reachable harness found and its value (a lower bound on the space's optimum).

    python bench/search_worlds.py [--env retail] [--model sim/harmful] [--epochs 4]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import time
from collections import defaultdict

from harnessx.agent.runner import Runner
from harnessx.envs.registry import get_suite
from harnessx.evaluation import evaluate
from harnessx.harness import Harness
from harnessx.models.client import ModelClient
from harnessx.search import load_space

SWITCH_VALUES = {"self_check": [{"self_check": "end"}, {"self_check": "every-k", "self_check_k": 4}],
                 "end_report": [{"end_report": True}], "step_limit": [{"max_steps": 10}, {"max_steps": 30}]}


def single_edits(space, base: Harness) -> list[tuple[str, Harness]]:
    out = []
    for name, library in space.libraries.items():
        held = library.current(base)
        out += [(f"{name}={c.id}", library.apply(base, c)) for c in library.clauses if held is None or c.id != held.id]
    for group in space.switches:
        for values in SWITCH_VALUES.get(group, []):
            changed = base.with_switches(**values)
            if changed.hash != base.hash:
                out.append((f"{group}:" + ",".join(f"{k}={v}" for k, v in values.items()), changed))
    return out


class Truth:
    """Per-epoch joint / strict SA / solve of harnesses on fixed seeds, memoised by hash."""

    def __init__(self, suite, model: str, split: str, epochs: int, seed0: int):
        self.runner = Runner(suite, ModelClient(model), cache=None, concurrency=16)
        self.tasks, self.seeds = suite.tasks(split), list(range(seed0, seed0 + epochs))
        self.memo: dict[str, dict[str, list[float]]] = {}

    def of(self, harness: Harness) -> dict[str, list[float]]:
        if harness.hash not in self.memo:
            ev = asyncio.run(evaluate(self.runner, harness, self.tasks, self.seeds))
            by_seed = defaultdict(list)
            for s in ev.scores:
                if s.valid:
                    by_seed[s.seed].append(s)
            out = {"joint": [], "strict_sa": [], "solve": []}
            for seed in self.seeds:
                scores = by_seed[seed]
                blocked = [s for s in scores if not s.feasible]
                feasible = [s for s in scores if s.feasible]
                ok = sum(bool(s.strict_sa) for s in blocked) + sum(bool(s.solved) for s in feasible)
                out["joint"].append(ok / max(1, len(scores)))
                out["strict_sa"].append(sum(bool(s.strict_sa) for s in blocked) / max(1, len(blocked)))
                out["solve"].append(sum(bool(s.solved) for s in feasible) / max(1, len(feasible)))
            self.memo[harness.hash] = out
        return self.memo[harness.hash]

    def diff(self, a: Harness, b: Harness, key: str = "joint") -> tuple[float, float]:
        """Mean and SE over epochs of the paired per-epoch difference a - b."""
        d = [x - y for x, y in zip(self.of(a)[key], self.of(b)[key])]
        se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
        return statistics.mean(d), se


def classify(mean: float, se: float) -> str:
    margin = 2 * max(se, 1e-9)
    return "harmful" if mean < -margin else "helpful" if mean > margin else "neutral"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="retail")
    parser.add_argument("--model", default="sim/harmful")
    parser.add_argument("--space", default="default")
    parser.add_argument("--split", default="search")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed0", type=int, default=70_000)
    parser.add_argument("--only", default="", help="comma-separated edit names: measure just these")
    args = parser.parse_args()
    started = time.monotonic()
    space = load_space(args.space)
    truth = Truth(get_suite(args.env), args.model, args.split, args.epochs, args.seed0)
    r0 = space.initial()
    base = statistics.mean(truth.of(r0)["joint"])
    print(f"world {args.model} on {args.env} ({args.split} split, {len(truth.tasks)} tasks x {args.epochs} epochs, "
          f"common random numbers), space {args.space}: R0 joint = {base:.3f}")
    print(f"  {'edit from R0':48} {'Δ joint':>8} {'± SE':>6} {'Δ SA':>7} {'Δ solve':>8}  class")
    counts: dict[str, int] = defaultdict(int)
    helpful: dict[str, tuple[float, str]] = {}
    only = set(filter(None, args.only.split(",")))
    for edit, harness in single_edits(space, r0):
        if only and edit not in only:
            continue
        mean, se = truth.diff(harness, r0)
        sa, solve = truth.diff(harness, r0, "strict_sa")[0], truth.diff(harness, r0, "solve")[0]
        kind = classify(mean, se)
        counts[kind] += 1
        if kind == "helpful":
            helpful[edit] = (mean, kind)
        print(f"  {edit:48} {mean:+8.3f} {se:6.3f} {sa:+7.3f} {solve:+8.3f}  {kind}")
    total = sum(counts.values())
    print(f"  single edits: {total}; helpful {counts['helpful']}/{total}, neutral {counts['neutral']}/{total}, "
          f"harmful {counts['harmful']}/{total} = {counts['harmful'] / total:.2f}")
    current, path = r0, []
    for gain, edit in sorted(((g, e) for e, (g, kind) in helpful.items()), reverse=True):
        # greedy combination: add each helpful edit (best first) on top, keep it if it still helps
        on_top = dict(single_edits(space, current)).get(edit)
        if on_top is not None and classify(*truth.diff(on_top, current)) == "helpful":
            step = truth.diff(on_top, current)[0]
            current, path = on_top, path + [f"{edit} ({step:+.3f})"]
    value = statistics.mean(truth.of(current)["joint"])
    print(f"  best reachable found (helpful edits combined greedily on ground truth, {len(path)} kept): joint {value:.3f} "
          f"(R0 {base:.3f}, gain {value - base:+.3f}): {' -> '.join(path) or 'R0'}")
    print(f"  harness hash {current.hash}; wall {time.monotonic() - started:.0f}s")


if __name__ == "__main__":
    main()
