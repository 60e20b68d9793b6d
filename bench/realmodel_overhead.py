"""The framework's share of wall time in real-model rollouts (local/smollm2 on the toy env).

Rollouts run one at a time after a warm-up (model load, imports). Framework time is wall time
minus the time inside model calls (ModelReply.latency_s, summed from the trajectories' model_call
events). The second line also counts LiteLLM and the worker-thread hop as overhead: wall time
minus llama.cpp's own generation time. Target: framework share under 5%.

    python bench/realmodel_overhead.py [--sources 2] [--max-steps 4] [--max-tokens 64]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from harnessx.agent.runner import Runner
from harnessx.envs.toy import ToySuite
from harnessx.harness import load_preset
from harnessx.local.engine import get_model
from harnessx.local.fewshot import tool_call_examples
from harnessx.models.client import ModelClient


async def measure(n_sources: int, max_steps: int, max_tokens: int) -> None:
    suite = ToySuite(n_sources=n_sources)
    tasks = suite.tasks()
    harness = (load_preset("A1").with_component("few_shot", tool_call_examples("chatml"))
               .with_switches(tool_format="text", max_steps=max_steps, max_output_tokens=max_tokens))
    runner = Runner(suite, ModelClient("local/smollm2"), concurrency=1)
    load_start = time.perf_counter()
    await runner.run_many(harness, tasks[:1], [10_000])  # warm-up: loads the model once
    load = time.perf_counter() - load_start
    engine = get_model("smollm2")
    generating_before = engine.seconds

    start = time.perf_counter()
    results = await runner.run_many(harness, tasks, [0])
    wall = time.perf_counter() - start
    in_calls = sum(e.data["latency_s"] for r in results for e in runner.trajectory(r).of_kind("model_call"))
    generating = engine.seconds - generating_before
    calls = sum(r.usage.calls for r in results)
    tokens = sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in results)
    print(f"warm-up (model load + first rollout): {load:.2f} s")
    print(f"rollouts {len(results)}, model calls {calls}, tokens {tokens}, wall {wall:.2f} s, "
          f"in model calls {in_calls:.2f} s, llama.cpp generating {generating:.2f} s")
    print(f"framework share (wall - model calls):            {100 * (wall - in_calls) / wall:6.2f} %  (target < 5 %)")
    print(f"framework + LiteLLM share (wall - llama.cpp):    {100 * (wall - generating) / wall:6.2f} %")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=2, help="toy sources (3 tasks each)")
    parser.add_argument("--max-steps", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()
    asyncio.run(measure(args.sources, args.max_steps, args.max_tokens))
