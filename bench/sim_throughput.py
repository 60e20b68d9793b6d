"""Simulated rollouts per second on this machine, framework included.

Every rollout takes the full path: Runner -> runtime loop -> ModelClient -> LiteLLM custom provider
-> `sim/<profile>` responder -> environment tools -> trajectory (hash-chained) -> scoring. No cache.

    python bench/sim_throughput.py                      # retail search split, A1, sim/baseline
    python bench/sim_throughput.py --env toy --workers 2 --rollouts 600

`--workers N` runs N processes (LiteLLM's per-call overhead is CPU-bound, so one event loop uses
one core); the rate is all rollouts over the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from concurrent.futures import ProcessPoolExecutor

from harnessx.agent.runner import Runner
from harnessx.envs.registry import get_suite
from harnessx.evaluation import evaluate
from harnessx.harness.presets import load_preset
from harnessx.models.client import ModelClient


def _run(env: str, model: str, preset: str, rollouts: int, offset: int, concurrency: int) -> tuple[int, int, float]:
    """One worker: rollouts over the search split, seeds from `offset`; returns (rollouts, calls, cpu s)."""
    suite = get_suite(env)
    tasks = suite.tasks("search")
    epochs = max(1, -(-rollouts // len(tasks)))
    runner = Runner(suite, ModelClient(model), cache=None, concurrency=concurrency)
    cpu = time.process_time()
    ev = asyncio.run(evaluate(runner, load_preset(preset), tasks, list(range(offset, offset + epochs))))
    return len(ev.results), sum(r.usage.calls for r in ev.results), time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="retail")
    parser.add_argument("--model", default="sim/baseline")
    parser.add_argument("--preset", default="A1")
    parser.add_argument("--rollouts", type=int, default=256, help="per worker (rounded up to whole epochs)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    _run(args.env, args.model, args.preset, 1, 10_000, 1)  # warm-up: imports, suite build, provider
    start = time.perf_counter()
    jobs = [(args.env, args.model, args.preset, args.rollouts, 1000 * w, args.concurrency) for w in range(args.workers)]
    if args.workers == 1:
        results = [_run(*jobs[0])]
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(_run, *zip(*jobs)))
    wall = time.perf_counter() - start
    n, calls, cpu = (sum(r[i] for r in results) for i in range(3))
    print(f"env={args.env} model={args.model} preset={args.preset} workers={args.workers} cores={os.cpu_count()} "
          f"load={os.getloadavg()[0]:.1f}")
    print(f"rollouts={n} model_calls={calls} ({calls / n:.1f} per rollout) wall={wall:.1f}s")
    print(f"throughput: {n / wall:.1f} rollouts/s, {calls / wall:.0f} calls/s; "
          f"cpu {1000 * cpu / calls:.2f} ms per call (all work in the worker, framework included)")


if __name__ == "__main__":
    main()
