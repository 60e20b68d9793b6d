"""Terminal power (#48 item 4): is there a gain on terminal the default cannot see, or none to see?

Measure: in each world, R0 and every single edit of the search space (bench/search_worlds.py's
`single_edits`), then the pairs of the best single edits (bench/proposer_reach.py's `combine`),
on the FULL terminal suite (search and held-out splits), every harness on the same epoch seeds
(common random numbers), so each (task, seed) gives a paired outcome: strict SA on a blocked task,
solve on a feasible one (the joint objective's per-task success). The outcomes are kept in the
result JSON, one character per (task, seed), so every figure below is recomputed from the file.

Analyse (pure, from the file): per edit and split, the ground-truth gain over R0 in joint, strict
SA and solve: the mean of the per-task paired differences (each task's mean over seeds), with its
95% paired bootstrap CI over tasks and n tasks. Then the power of the shipped default (`promote`,
harnessx/search/explore.py) for the best edit of the search split, by Monte Carlo over the measured
outcomes: a search split of n tasks drawn with replacement from the measured search split (half
blocked, in the arena's blocked/feasible interleaved order), one seed per task, the edit proposed
alone against R0: the screen (`screen` tasks, 3/4 of them in pairs R0 failed), the rungs (the first
screen * 2^r tasks of the order, a lead needed), then the move (one-sided paired sign-flip p <
move_p on the whole split). It leaves out the harm veto and competing proposals, so it bounds the
default's chance from above.

    python bench/terminal_power.py measure --worlds baseline,harmful,draw:3 [--epochs 1] [--workers 2]
    python bench/terminal_power.py report bench/terminal_power.json [--sizes 20,107]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harnessx.agent.runner import Runner
from harnessx.envs.registry import get_suite
from harnessx.evaluation import evaluate
from harnessx.models.client import ModelClient
from harnessx.search import load_space
from harnessx.search.explore import FAILING_SHARE, ExploreSettings
from harnessx.sim.worlds import parse_worlds, world_model
from harnessx.stats.bootstrap import paired_bootstrap_ci
from harnessx.stats.paired import paired_test

from proposer_reach import Edit, combine
from search_worlds import single_edits

SEED0 = 50_000  # the ground-truth seeds of bench/search_efficiency.py
TOP = 3  # pairs among this many best single edits (search split) are measured
SPLITS = ("search", "heldout")
PARTS = ("joint", "strict_sa", "solve")
MISSING = "-"  # an invalid rollout (excluded, named in the run's output)


# --- measure ------------------------------------------------------------------------------------
def outcome_string(scores, task_ids: list[str], seeds: list[int]) -> str:
    """One character per (task, seed), tasks outer: 1 success (strict SA blocked / solved feasible), 0 not, - invalid."""
    got = {(s.task_id, s.seed): (s.solved if s.feasible else s.strict_sa) for s in scores if s.valid}
    return "".join(MISSING if (t, e) not in got else "1" if got[t, e] else "0" for t in task_ids for e in seeds)


def measure_world(world: str, epochs: int, concurrency: int, only: tuple[str, ...] = (), limit: int = 0) -> dict:
    """`only`: just these single edits; `limit`: the first tasks of each split (a smoke run)."""
    started = time.monotonic()
    profile = world_model(world)
    suite = get_suite("terminal")
    tasks = {split: sorted(suite.tasks(split), key=lambda t: t.id)[: limit or None] for split in SPLITS}
    every = [t for split in SPLITS for t in tasks[split]]
    ids, seeds = [t.id for t in every], list(range(SEED0, SEED0 + epochs))
    runner = Runner(suite, ModelClient(f"sim/{profile}"), cache=None, concurrency=concurrency)

    def run(harness) -> str:
        return outcome_string(asyncio.run(evaluate(runner, harness, every, seeds)).scores, ids, seeds)

    space = load_space()
    r0 = space.initial()
    out = {"world": world, "profile": profile, "epochs": epochs, "seeds": seeds,
           "tasks": {split: [[t.id, t.feasible] for t in tasks[split]] for split in SPLITS},
           "outcomes": {"R0": run(r0)}, "pairs": []}
    edits = [Edit(key, h) for key, h in single_edits(space, r0) if not only or key in only]
    for edit in edits:
        out["outcomes"][edit.key] = run(edit.harness)
    data = Outcomes.of(out)
    ranked = sorted(edits, key=lambda e: -data.mean_gain(e.key, "search"))
    for a, b in itertools.combinations(ranked[:TOP], 2):
        both = combine(space, a, b)
        if both is not None:
            key = f"{a.key} + {b.key}"
            out["outcomes"][key], out["pairs"] = run(both), out["pairs"] + [key]
    out["wall_s"] = round(time.monotonic() - started, 1)
    print(f"  {world}: {len(out['outcomes'])} harnesses x {len(ids)} tasks x {epochs} epoch(s) in {out['wall_s']:.0f}s",
          flush=True)
    return out


# --- analyse ------------------------------------------------------------------------------------
@dataclass
class Outcomes:
    """One world's measured outcomes: per harness, a (tasks x seeds) array of 1/0/NaN."""

    world: str
    feasible: dict[str, np.ndarray]     # split -> bool per task
    split_rows: dict[str, slice]        # split -> the rows of its tasks
    arrays: dict[str, np.ndarray]       # harness key -> (tasks, seeds)
    pairs: list[str]

    @classmethod
    def of(cls, record: dict) -> "Outcomes":
        k, rows, start, feasible = len(record["seeds"]), {}, 0, {}
        for split in SPLITS:
            listed = record["tasks"][split]
            rows[split], start = slice(start, start + len(listed)), start + len(listed)
            feasible[split] = np.array([bool(f) for _, f in listed])
        arrays = {key: np.array([np.nan if c == MISSING else float(c) for c in text]).reshape(-1, k)
                  for key, text in record["outcomes"].items()}
        return cls(record["world"], feasible, rows, arrays, list(record.get("pairs", [])))

    def edits(self) -> list[str]:
        return [k for k in self.arrays if k != "R0" and k not in self.pairs]

    def paired(self, key: str, split: str, part: str = "joint") -> tuple[np.ndarray, np.ndarray]:
        """Per-task means over the seeds both harnesses have (edit, R0), on the part's tasks."""
        a, b = self.arrays[key][self.split_rows[split]], self.arrays["R0"][self.split_rows[split]]
        keep = {"joint": slice(None), "strict_sa": ~self.feasible[split], "solve": self.feasible[split]}[part]
        a, b = a[keep], b[keep]
        both = ~(np.isnan(a) | np.isnan(b))
        seen = both.any(axis=1)
        mean = lambda x: np.where(both, x, 0.0).sum(axis=1)[seen] / both.sum(axis=1)[seen]  # noqa: E731
        return mean(a), mean(b)

    def gain(self, key: str, split: str, part: str = "joint", resamples: int = 2000) -> tuple[float, float, float, int]:
        """(mean paired difference, 95% bootstrap CI low, high, n tasks) of `key` over R0."""
        a, b = self.paired(key, split, part)
        if a.size == 0:
            return math.nan, math.nan, math.nan, 0
        if not (a - b).any():
            return 0.0, 0.0, 0.0, int(a.size)
        mean, lo, hi = paired_bootstrap_ci(a, b, n_resamples=resamples)
        return mean, lo, hi, int(a.size)

    def mean_gain(self, key: str, split: str, part: str = "joint") -> float:
        a, b = self.paired(key, split, part)
        return float((a - b).mean()) if a.size else math.nan


def screen_pairs(r0_fail_pair: np.ndarray, screen: int) -> np.ndarray:
    """Indices of the pairs the default screens on: ceil(3/4 * screen/2) pairs R0 failed at least once
    in, in order, then the next pairs of the order up to screen/2 pairs (explore.py's window)."""
    want, size = math.ceil(FAILING_SHARE * screen / 2), math.ceil(screen / 2)
    failing = np.flatnonzero(r0_fail_pair)[:want]
    rest = [i for i in range(r0_fail_pair.size) if i not in set(failing.tolist())][: size - failing.size]
    return np.sort(np.concatenate([failing, np.array(rest, dtype=int)])).astype(int)


def one_round(edit: np.ndarray, r0: np.ndarray, settings: ExploreSettings, resamples: int = 1000) -> str:
    """Where the `promote` design leaves one proposal against R0 on one split, given the per-task
    outcomes in the arena's order (blocked, feasible, blocked, ...): 'screen', 'rung', 'p' or 'moved'."""
    n, d = edit.size, edit - r0
    pairs = screen_pairs(np.array([r0[i:i + 2].min() < 1 for i in range(0, n, 2)]), min(settings.screen, n))
    shown = np.concatenate([np.arange(2 * p, min(2 * p + 2, n)) for p in pairs])
    if d[shown].mean() < settings.futility:
        return "screen"
    rung = 0
    while True:
        rung += 1
        prefix = len(shown) * 2 ** rung
        prefix = n if prefix >= n - 2 else prefix
        if d[:prefix].mean() <= settings.futility:
            return "rung"
        if prefix == n:
            break
    p = paired_test(edit, r0, n_resamples=resamples).p_value
    return "moved" if p < settings.move_p else "p"


def move_probability(data: Outcomes, key: str, n: int, settings: ExploreSettings | None = None, sims: int = 400,
                     seed: int = 0) -> dict[str, float]:
    """Monte Carlo over search splits of n tasks drawn (with replacement, half blocked) from the measured
    search split, one measured seed per task: the share of rounds ending at each stage."""
    settings, rng = settings or ExploreSettings(), np.random.default_rng(seed)
    rows = data.split_rows["search"]
    edit, base = data.arrays[key][rows], data.arrays["R0"][rows]
    ok = ~(np.isnan(edit) | np.isnan(base))
    blocked, feasible = np.flatnonzero(~data.feasible["search"]), np.flatnonzero(data.feasible["search"])
    ends = {"screen": 0, "rung": 0, "p": 0, "moved": 0}
    for _ in range(sims):
        b, f = rng.choice(blocked, n // 2), rng.choice(feasible, n - n // 2)
        order = np.empty(n, dtype=int)
        order[0:2 * (n // 2):2], order[1:2 * (n // 2):2] = b, f[: n // 2]
        order[2 * (n // 2):] = f[n // 2:]
        cols = np.array([rng.choice(np.flatnonzero(ok[t])) if ok[t].any() else -1 for t in order])
        keep = cols >= 0
        ends[one_round(edit[order[keep], cols[keep]], base[order[keep], cols[keep]], settings)] += 1
    return {k: v / sims for k, v in ends.items()}


def report(records: list[dict], sizes: list[int], sims: int) -> dict:
    """The figures of every world: R0, each edit's and pair's gains, the best and its power."""
    out = []
    for record in records:
        data = Outcomes.of(record)
        rows = {}
        for key in [*data.edits(), *data.pairs]:
            rows[key] = {split: {part: data.gain(key, split, part) for part in PARTS} for split in SPLITS}
        best = max(data.edits(), key=lambda k: (rows[k]["search"]["joint"][0], k))
        best_pair = max(data.pairs, key=lambda k: (rows[k]["search"]["joint"][0], k)) if data.pairs else None
        r0 = {split: float(np.nanmean(data.arrays["R0"][data.split_rows[split]])) for split in SPLITS}
        power = {str(n): move_probability(data, best, n, sims=sims) for n in sizes}
        out.append({"world": data.world, "epochs": record["epochs"], "r0": r0, "gains": rows, "best": best,
                    "best_pair": best_pair, "power": power,
                    "tasks": {s: len(record["tasks"][s]) for s in SPLITS}})
    return {"worlds": out, "sizes": sizes, "sims": sims}


def ci_text(g) -> str:
    mean, lo, hi, n = g
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}] (n {n})"


def print_report(summary: dict) -> None:
    for w in summary["worlds"]:
        print(f"\n== {w['world']}: full terminal suite, {w['tasks']['search']} search / {w['tasks']['heldout']} "
              f"held-out tasks x {w['epochs']} epoch(s); R0 joint {w['r0']['search']:.3f} / {w['r0']['heldout']:.3f}")
        print(f"  {'edit from R0':62} {'Δ joint search':>30} {'Δ joint held-out':>30} {'Δ SA search':>10} {'Δ solve search':>10}")
        for key, g in sorted(w["gains"].items(), key=lambda kv: -kv[1]["search"]["joint"][0]):
            print(f"  {key:62} {ci_text(g['search']['joint']):>30} {ci_text(g['heldout']['joint']):>30} "
                  f"{g['search']['strict_sa'][0]:+10.3f} {g['search']['solve'][0]:+10.3f}")
        print(f"  best single edit (search split): {w['best']}; best pair: {w['best_pair']}")
        for n, p in w["power"].items():
            print(f"  default on {n} tasks, best edit proposed alone vs R0: moved {p['moved']:.2f}, stopped at screen "
                  f"{p['screen']:.2f}, at a rung {p['rung']:.2f}, p >= move_p {p['p']:.2f} ({summary['sims']} rounds)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="run every single edit and the best pairs on the full terminal suite")
    m.add_argument("--worlds", default="baseline,harmful")
    m.add_argument("--epochs", type=int, default=1)
    m.add_argument("--workers", type=int, default=2)
    m.add_argument("--concurrency", type=int, default=16)
    m.add_argument("--out", type=Path, default=Path("bench/terminal_power.json"))
    m.add_argument("--only", default="", help="comma-separated edit names: measure just these (a smoke run)")
    m.add_argument("--limit", type=int, default=0, help="the first N tasks of each split only (a smoke run)")
    r = sub.add_parser("report", help="the figures from a measured file")
    r.add_argument("path", type=Path)
    r.add_argument("--sizes", default="20,107", help="search split sizes for the power computation")
    r.add_argument("--sims", type=int, default=400)
    args = parser.parse_args()
    if args.command == "measure":
        try:
            worlds = parse_worlds(args.worlds)
        except ValueError as exc:
            parser.error(f"--worlds: {exc}")
        if args.epochs < 1 or args.workers < 1:
            parser.error("--epochs and --workers: expected at least 1")
        done = json.loads(args.out.read_text(encoding="utf-8"))["records"] if args.out.exists() else []
        todo = [w for w in worlds if w not in {d["world"] for d in done}]
        with ProcessPoolExecutor(args.workers) as pool:
            only = tuple(filter(None, args.only.split(",")))
            for record in pool.map(measure_world, todo, *([v] * len(todo) for v in (args.epochs, args.concurrency, only,
                                                                                     args.limit))):
                done.append(record)
                args.out.write_text(json.dumps({"records": done}, separators=(",", ":")) + "\n", encoding="utf-8")
        return
    try:
        records = json.loads(args.path.read_text(encoding="utf-8"))["records"]
        sizes = [int(s) for s in args.sizes.split(",")]
    except (OSError, ValueError, KeyError) as exc:
        parser.error(f"{args.path}: expected the JSON `measure` writes ({exc})")
    print_report(report(records, sizes, args.sims))


if __name__ == "__main__":
    main()
