"""Cost of an agent's `bash` call in the terminal environment: the episode's persistent shell against a
fresh sandboxed process per call (the path every call took before the shell, still used by the file
tools, the harness and the verifier).

For each episode of the built-in search split (first `--episodes` tasks), the env is reset, `--calls`
bash calls run both ways, interleaved, each between the env's workspace snapshots as in a rollout;
the medians per call and a whole episode (reset + calls + verify + cleanup) with each path are printed.

Run: python bench/terminal_shell.py [--episodes 6] [--calls 10] [--sandbox bwrap]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from harnessx.envs.base import AbandonSpec
from harnessx.envs.registry import get_suite
from harnessx.envs.terminal.env import TerminalEnv

COMMAND = "ls -la >/dev/null; echo $((RANDOM % 7)) > /tmp/hx-bench.txt; cat /tmp/hx-bench.txt"


async def episode(task, sandbox: str | None, calls: int, in_shell: bool) -> tuple[float, list[float]]:
    env = TerminalEnv(sandbox)
    started = time.perf_counter()
    per_call = []
    try:
        await env.reset(task, AbandonSpec(mode="file"))
        for _ in range(calls):
            t = time.perf_counter()
            _, failed, _ = env.tracked("agent", COMMAND, 60.0, in_shell=in_shell)
            per_call.append(time.perf_counter() - t)
            if failed:
                raise RuntimeError("the benchmark command failed")
        await env.verify()
    finally:
        await env.cleanup()
    return time.perf_counter() - started, per_call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=6)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--sandbox", default=None)
    args = parser.parse_args()
    tasks = get_suite("terminal", sandbox=args.sandbox).tasks("search")[:args.episodes]
    asyncio.run(episode(tasks[0], args.sandbox, 1, True))  # warm-up
    runs: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}
    for task in tasks:
        for in_shell in (True, False):
            total, per_call = asyncio.run(episode(task, args.sandbox, args.calls, in_shell))
            runs[in_shell][0].append(total)
            runs[in_shell][1].extend(per_call)
    print(f"sandbox={args.sandbox or 'default'} episodes={len(tasks)} calls/episode={args.calls} "
          f"cores={os.cpu_count()} load={os.getloadavg()[0]:.1f}")
    for in_shell, label in ((True, "persistent shell"), (False, "process per call")):
        totals, calls = runs[in_shell]
        print(f"{label:17s}: {1000 * statistics.median(calls):7.1f} ms per call (median of {len(calls)}), "
              f"{statistics.median(totals):.2f} s per episode (median of {len(totals)})")
    shell, fresh = (statistics.median(runs[k][1]) for k in (True, False))
    print(f"per-call speed-up: {fresh / shell:.1f}x")


if __name__ == "__main__":
    main()
