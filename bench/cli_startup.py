"""CLI start-up cost: CPU seconds (user + sys of the child process) of `harnessx --help`, `harnessx
presets`, `harnessx search --help`, `harnessx eval --help` and `harnessx tasks list --env toy` against
a bare `python -c pass`, each run N times in a
fresh subprocess; the table shows medians and the ratio to the bare interpreter.

CPU time, not wall time: on a shared machine wall time measures the neighbours, while the CPU a
process burns is its own. The commands run as `python -m harnessx.cli.main` with this checkout first
on the path (what the `harnessx` script runs). Exit status: 1 when the median CPU of any `--help` or
of `presets` is over --limit seconds.

    python bench/cli_startup.py                 # 5 runs each, limit 1 s
    python bench/cli_startup.py --runs 9 --limit 0.8
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "harnessx.cli.main"]
COMMANDS = {"python -c pass": [sys.executable, "-c", "pass"],
            "harnessx --help": [*CLI, "--help"],
            "harnessx presets": [*CLI, "presets"],
            "harnessx search --help": [*CLI, "search", "--help"],
            "harnessx eval --help": [*CLI, "eval", "--help"],
            "harnessx tasks list --env toy": [*CLI, "tasks", "list", "--env", "toy"]}
LIMITED = ("harnessx --help", "harnessx presets", "harnessx search --help", "harnessx eval --help")  # --limit applies


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run; a failing command stops the bench."""
    cpu0, wall0 = child_cpu(), time.perf_counter()
    done = subprocess.run(cmd, check=False, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    cpu, wall = child_cpu() - cpu0, time.perf_counter() - wall0
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-2000:]}")
    return cpu, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--limit", type=float, default=1.0,
                        help="median CPU seconds allowed for each --help and presets (default 1.0)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs: expected a positive number of runs")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "COLUMNS": "80"}

    medians: dict[str, tuple[float, float]] = {}
    for name, cmd in COMMANDS.items():
        runs = [measure(cmd, env) for _ in range(args.runs)]
        medians[name] = (statistics.median(c for c, _ in runs), statistics.median(w for _, w in runs))

    base = medians["python -c pass"][0]
    print(f"{'command':32} {'CPU s (median)':>15} {'x python -c pass':>17} {'wall s (median)':>16}   n={args.runs}")
    for name, (cpu, wall) in medians.items():
        print(f"{name:32} {cpu:15.2f} {cpu / base if base else float('nan'):17.1f} {wall:16.2f}")
    over = [name for name in LIMITED if medians[name][0] > args.limit]
    if over:
        print(f"over the {args.limit:g} s CPU limit: {', '.join(over)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
