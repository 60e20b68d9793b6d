"""Terminal rollouts per second with sandbox work off the event loop against on it (as before).

A model call waits (a fixed latency, as an API call does) while other rollouts' sandboxes run their
setup, commands and verifiers. Run on the event loop, each of those steps stalls every rollout in
flight; run on sandbox threads (`harnessx/envs/terminal/offload.py`), they overlap with the waits
and with each other. Both ways run the same rollouts (the first `--rollouts` of the built-in search
split, harness A1, the baseline simulated agent with `--latency` seconds per call), alternating,
`--repeats` times; the bench checks that both give the same rewards and statuses, then prints the
median rollouts per second of each and their ratio.

Run: python bench/terminal_overlap.py [--rollouts 32] [--concurrency 8] [--latency 0.5] [--repeats 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import harnessx.envs.terminal.env as terminal_env
from harnessx.agent.runner import Runner
from harnessx.envs.registry import get_suite
from harnessx.evaluation import evaluate
from harnessx.harness.presets import load_preset
from harnessx.models.client import ModelClient

OFF_LOOP = terminal_env.offload


async def on_loop(step, abort):
    """What every sandbox step did before: run to its end on the event loop."""
    return step()


def run(model: str, tasks, concurrency: int, blocking: bool) -> tuple[float, list[tuple]]:
    terminal_env.offload = on_loop if blocking else OFF_LOOP
    try:
        runner = Runner(get_suite("terminal"), ModelClient(model), cache=None, concurrency=concurrency)
        started = time.perf_counter()
        ev = asyncio.run(evaluate(runner, load_preset("A1"), tasks, [0]))
        wall = time.perf_counter() - started
    finally:
        terminal_env.offload = OFF_LOOP
    return len(ev.results) / wall, sorted((r.task_id, r.status, r.reward) for r in ev.results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per model call")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    tasks = get_suite("terminal").tasks("search")[:args.rollouts]
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "sim-latency.yaml"
        profile.write_text(f"extends: baseline\nlatency: {{dist: fixed, mean_s: {args.latency}}}\n")
        model = f"sim/{profile}"
        rates: dict[bool, list[float]] = {True: [], False: []}
        outcomes: dict[bool, list] = {}
        for _ in range(args.repeats):
            for blocking in (True, False):
                rate, outcome = run(model, tasks, args.concurrency, blocking)
                rates[blocking].append(rate)
                outcomes.setdefault(blocking, outcome)
                if outcome != outcomes[blocking]:
                    raise SystemExit("a repeat gave other outcomes than the first: the comparison would be unfair")
    if outcomes[True] != outcomes[False]:
        raise SystemExit("the two ways gave different rewards or statuses")
    on, off = statistics.median(rates[True]), statistics.median(rates[False])
    print(f"terminal rollouts={len(tasks)} concurrency={args.concurrency} latency={args.latency}s per call "
          f"repeats={args.repeats} cores={os.cpu_count()} load={os.getloadavg()[0]:.1f}; outcomes identical")
    print(f"sandbox work on the event loop (before): {on:.2f} rollouts/s  (runs: {', '.join(f'{r:.2f}' for r in rates[True])})")
    print(f"sandbox work on sandbox threads (now):   {off:.2f} rollouts/s  (runs: {', '.join(f'{r:.2f}' for r in rates[False])})")
    print(f"ratio: {off / on:.2f}x")


if __name__ == "__main__":
    main()
