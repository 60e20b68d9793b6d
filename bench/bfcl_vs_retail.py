"""A BFCL search next to a retail search under the same load: wall, CPU, rollouts, model calls.

Runs `harnessx search --objective joint --env bfcl` and `--env retail` as the CLI does (a fresh
process, a fresh runs folder each, `--no-mlflow`, the same rounds, proposals and seed), back to back
and repeated in ABBA order (bfcl, retail, retail, bfcl, ...) so that both see the same machine
load. Prints each run, then per env the totals, per-rollout and per-call costs, and the ratios
BFCL/retail (the ratio of the summed walls and CPUs over all repeats).

    python bench/bfcl_vs_retail.py                        # R0 + 8 x 3 (the search defaults), 2 repeats
    python bench/bfcl_vs_retail.py --rounds 2 --repeats 1
    python bench/bfcl_vs_retail.py --profile 86            # cProfile of 86 BFCL rollouts, by part

Wall is the search process's whole life (start-up included); CPU is that process's user + sys
time; rollouts and model calls are the run's `summary.json`. `--profile N` runs N rollouts of the
BFCL search split in-process (A1, sim/baseline) under cProfile and splits the time by where it is
spent (LiteLLM, the simulator, the environment, BFCL's checker, trajectory hashing, ...).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ENVS = ("bfcl", "retail")


@dataclass
class Run:
    env: str
    wall_s: float
    cpu_s: float
    rollouts: int
    calls: int
    load: float


def search(env: str, args: argparse.Namespace, runs_dir: Path) -> Run:
    cmd = [sys.executable, "-m", "harnessx.cli.main", "search", "--objective", "joint", "--env", env,
           "--rounds", str(args.rounds), "--proposals", str(args.proposals), "--seed", str(args.seed),
           "--no-mlflow", "--runs-dir", str(runs_dir), "--name", env, *args.extra]
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "COLUMNS": "120"})
    wall = time.perf_counter() - start
    after = os.times()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    summary = json.loads((runs_dir / env / "summary.json").read_text())
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return Run(env, wall, cpu, int(summary["rollouts"]), int(summary["model_calls"]), os.getloadavg()[0])


def order(repeats: int) -> list[str]:
    """ABBA: bfcl, retail, retail, bfcl, bfcl, retail, ..."""
    return [ENVS[(i + (i // 2)) % 2] for i in range(2 * repeats)]


def totals(runs: list[Run]) -> dict[str, float]:
    wall, cpu = sum(r.wall_s for r in runs), sum(r.cpu_s for r in runs)
    n, calls = sum(r.rollouts for r in runs), sum(r.calls for r in runs)
    return {"runs": len(runs), "wall_s": wall, "cpu_s": cpu, "rollouts": n, "calls": calls,
            "calls_per_rollout": calls / n, "wall_ms_per_rollout": 1000 * wall / n,
            "cpu_ms_per_rollout": 1000 * cpu / n, "cpu_ms_per_call": 1000 * cpu / calls}


def compare(args: argparse.Namespace) -> None:
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="bfcl-vs-retail-") as tmp:
        for i, env in enumerate(order(args.repeats)):
            run = search(env, args, Path(tmp) / f"{i}-{env}")
            runs.append(run)
            print(f"run {i + 1}: {env:6s} rollouts={run.rollouts} model_calls={run.calls} wall={run.wall_s:.1f}s "
                  f"cpu={run.cpu_s:.1f}s load1={run.load:.1f}", flush=True)
    t = {env: totals([r for r in runs if r.env == env]) for env in ENVS}
    print(f"\nR0 + {args.rounds} x {args.proposals}, seed {args.seed}, {args.repeats} repeat(s) each in ABBA order, "
          f"{os.cpu_count()} cores, load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} at the end")
    print("| env | runs | rollouts | model calls | calls/rollout | wall s | CPU s | wall ms/rollout | "
          "CPU ms/rollout | CPU ms/call |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for env in ENVS:
        x = t[env]
        print(f"| {env} | {x['runs']} | {x['rollouts']} | {x['calls']} | {x['calls_per_rollout']:.2f} | "
              f"{x['wall_s']:.1f} | {x['cpu_s']:.1f} | {x['wall_ms_per_rollout']:.1f} | "
              f"{x['cpu_ms_per_rollout']:.1f} | {x['cpu_ms_per_call']:.2f} |")
    b, r = t["bfcl"], t["retail"]
    print(f"BFCL/retail: wall {b['wall_s'] / r['wall_s']:.2f}x, CPU {b['cpu_s'] / r['cpu_s']:.2f}x, "
          f"rollouts {b['rollouts'] / r['rollouts']:.2f}x, model calls {b['calls'] / r['calls']:.2f}x, "
          f"calls/rollout {b['calls_per_rollout'] / r['calls_per_rollout']:.2f}x, "
          f"CPU/call {b['cpu_ms_per_call'] / r['cpu_ms_per_call']:.2f}x")


# --- where a BFCL rollout's time goes ----------------------------------------------------------
PARTS = {  # first match wins, by the file of the profiled function (cumulative time of the part's entry points)
    "BFCL checker": ("harnessx/envs/bfcl/checker.py",),
    "environment (BFCL API calls, reset)": ("harnessx/envs/bfcl/env.py",),
    "simulated agent (responder)": ("harnessx/sim/responder.py",),
    "LiteLLM call (total, responder included)": ("litellm/utils.py",),
    "trajectory (hash chain)": ("harnessx/trajectory.py",),
    "prompt rendering": ("harnessx/harness/render.py",),
    "scoring": ("harnessx/scoring/", "harnessx/benchmarks/"),
}
ENTRY = {"BFCL checker": "check", "environment (BFCL API calls, reset)": ("execute", "reset", "user_reply"),
         "simulated agent (responder)": "respond", "LiteLLM call (total, responder included)": "wrapper_async",
         "trajectory (hash chain)": "append", "prompt rendering": "render",
         "scoring": ("score", "score_rollout")}


def profile(n: int, concurrency: int) -> None:
    from harnessx.agent.runner import Runner
    from harnessx.envs.registry import get_suite
    from harnessx.evaluation import evaluate
    from harnessx.harness.presets import load_preset
    from harnessx.models.client import ModelClient

    suite = get_suite("bfcl")
    tasks = suite.tasks("search")
    tasks = (tasks * (n // len(tasks) + 1))[:n]
    runner = Runner(suite, ModelClient("sim/baseline"), cache=None, concurrency=concurrency)
    asyncio.run(evaluate(runner, load_preset("A1"), tasks[:2], [10_000]))  # warm-up: imports, caches
    prof = cProfile.Profile(time.process_time)  # CPU time: a loaded machine's waits do not count
    cpu = time.process_time()
    prof.enable()
    ev = asyncio.run(evaluate(runner, load_preset("A1"), tasks, [0]))
    prof.disable()
    cpu = time.process_time() - cpu
    calls = sum(r.usage.calls for r in ev.results)
    stats = pstats.Stats(prof).stats  # {(file, line, func): (cc, nc, tt, ct, callers)}
    total = sum(v[2] for v in stats.values())
    print(f"{len(ev.results)} BFCL rollouts, {calls} model calls, CPU {cpu:.2f} s under cProfile "
          f"({1000 * cpu / calls:.2f} ms per call); profiled CPU {total:.2f} s, by part (cumulative, parts overlap):")
    for part, files in PARTS.items():
        names = ENTRY[part] if isinstance(ENTRY[part], tuple) else (ENTRY[part],)
        cum = sum(v[3] for (file, _line, func), v in stats.items()
                  if func in names and any(f.rstrip(":") in file for f in files))
        print(f"  {part:45s} {cum:6.2f} s  {100 * cum / total:5.1f}%  {1000 * cum / calls:5.2f} ms/call")
    print("top 15 by own time:")
    pstats.Stats(prof).sort_stats("tottime").print_stats(15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--proposals", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=2, help="searches per env, in ABBA order")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="profile N BFCL rollouts instead")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("extra", nargs="*", help="more `harnessx search` options, after --")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.concurrency)
    else:
        args.extra = [*args.extra, "--concurrency", str(args.concurrency)]
        compare(args)


if __name__ == "__main__":
    main()
