"""Framework overhead per rollout and per model call, and the concurrency speed-up.

1. Overhead: rollouts on the toy environment with a scripted model that answers instantly.
   Time inside `litellm.acompletion` is measured per call (ModelReply.latency_s) and split off, so
   the printout separates HarnessX's own time from LiteLLM's.
2. Concurrency: 64 rollouts whose every model call takes a fixed latency, run sequentially
   (concurrency 1) and concurrently (concurrency 64); the speed-up is compared with the ideal.

Run: python bench/runtime_overhead.py [--rollouts 200] [--latency 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from harnessx.agent.runner import Runner
from harnessx.envs.toy import ToySuite
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.models.providers import register_script


def plan_follower(latency: float):
    def script(messages, tools, metadata):
        sim = metadata["harnessx"]["sim"]
        done = sum(m["role"] == "tool" for m in messages)
        actions = sim["reference"]["actions"]
        reply = {"content": "Done.", "latency_s": latency}
        if done < len(actions):
            reply.update(content="", tool_calls=[actions[done]])
        return reply
    return script


async def _timed_many(runner: Runner, harness, tasks, seeds) -> tuple[float, list]:
    start = time.perf_counter()
    results = await runner.run_many(harness, tasks, seeds)
    return time.perf_counter() - start, results


def overhead(n_rollouts: int) -> None:
    suite = ToySuite(n_sources=8)
    feasible = [t for t in suite.tasks() if t.feasible]
    model = ModelClient(register_script("instant", plan_follower(0.0)))
    harness = load_preset("A1")
    seeds = range(n_rollouts // len(feasible))
    runner = Runner(suite, model, concurrency=1)
    asyncio.run(runner.run_many(harness, feasible, [10_000]))  # warm-up (imports, first-call setup)
    wall, results = asyncio.run(_timed_many(runner, harness, feasible, seeds))
    calls = sum(r.usage.calls for r in results)
    in_litellm = sum(e.data["latency_s"] for r in results for e in runner.trajectory(r).of_kind("model_call"))
    own = wall - in_litellm
    print(f"rollouts: {len(results)}, model calls: {calls}")
    print(f"HarnessX own time per rollout:    {own / len(results) * 1e3:7.3f} ms")
    print(f"HarnessX own time per model call: {own / calls * 1e3:7.3f} ms  (aim: < 5 ms)")
    print(f"LiteLLM time per model call:      {in_litellm / calls * 1e3:7.3f} ms  (inside litellm.acompletion, instant model)")


def concurrency(latency: float, n: int = 64, sequential_sample: int = 8) -> None:
    """Sequential time is measured on `sequential_sample` rollouts and scaled to n (it is linear)."""
    suite = ToySuite(n_sources=n)
    feasible = [t for t in suite.tasks() if t.feasible][:n]
    model = ModelClient(register_script("slow", plan_follower(latency)))
    harness = load_preset("A1")
    sample, _ = asyncio.run(_timed_many(Runner(suite, model, concurrency=1), harness, feasible[:sequential_sample], [0]))
    sequential = sample / sequential_sample * n
    parallel, results = asyncio.run(_timed_many(Runner(suite, model, concurrency=n), harness, feasible, [0]))
    calls_per_rollout = sum(r.usage.calls for r in results) / len(results)
    speedup = sequential / parallel
    print(f"{n} rollouts x {calls_per_rollout:.0f} calls x {latency * 1e3:.0f} ms model latency")
    print(f"sequential {sequential:.2f} s (measured on {sequential_sample}, scaled), concurrent {parallel:.2f} s")
    print(f"speed-up {speedup:.1f}x; ideal {n}x; ratio to ideal {speedup / n:.2f} (aim: >= 0.80)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=200)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    args = parser.parse_args()
    overhead(args.rollouts)
    concurrency(args.latency)
