"""A real local/smollm2 search on the starter suite: R0 vs selected on the held-out split, and what
llama.cpp's prefix (KV) cache saves per rollout.

1. `harnessx search` (rules proposer, the default search space with R0 = A1 made short: few steps,
   few output tokens, the shipped few-shot tool-call examples as ChatML turns) on the first `--sources` sources of the starter suite's search split;
2. R0 and the selected harness on the first `--heldout-sources` held-out sources, same seeds, and
   their paired difference of the joint outcome with a 95% bootstrap CI over sources (a feasible
   task and its blocked twin are drawn together, with all their epochs);
3. R0 on the held-out tasks again, uncached, one rollout at a time, with llama.cpp's prefix reuse
   on and then off (the context reset before every call): seconds per rollout and their ratio.

Prints the figures; asserts nothing. Every rate carries k/n.

    python bench/realmodel_search.py [--sources 4] [--heldout-sources 4] [--rounds 1] [--proposals 2]
        [--tool-format native] [--max-steps 2] [--max-tokens 64] [--concurrency 2] [--out runs/bench-realmodel]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path

import yaml

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.comparison.paired import paired_difference
from harnessx.envs.starter import StarterSuite
from harnessx.envs.subset import select_tasks
from harnessx.evaluation import evaluate
from harnessx.harness import Harness, load_preset
from harnessx.local.engine import get_model
from harnessx.local.fewshot import tool_call_examples
from harnessx.models.client import ModelClient
from harnessx.search import Search, SearchConfig

SPACES = Path(__file__).resolve().parent.parent / "search_spaces"


def space_file(folder: Path, tool_format: str, max_steps: int, max_tokens: int, few_shot: str) -> str:
    space = yaml.safe_load((SPACES / "default.yaml").read_text())
    r0 = load_preset(space["r0"]).with_switches(tool_format=tool_format, max_steps=max_steps,
                                                 max_output_tokens=max_tokens)
    if few_shot != "none":
        r0 = r0.with_component("few_shot", tool_call_examples(few_shot))
    space.update(name="starter-short", r0={"name": "A1-short", "components": r0.components,
                                            "switches": r0.switches.model_dump(mode="json")})
    path = folder / "space.yaml"
    path.write_text(yaml.safe_dump(space, sort_keys=False))
    return str(path)


def rate(card, key: str) -> str:
    r = getattr(card, key)
    ci = f" [{r.ci[0]:.2f}, {r.ci[1]:.2f}]" if r.n else ""
    return f"{r.k}/{r.n}{ci}"


async def per_rollout_seconds(harness: Harness, tasks, prefix_cache: bool) -> tuple[float, float]:
    """Wall and llama.cpp seconds per rollout, uncached, one rollout at a time."""
    engine = get_model("smollm2")
    engine.prefix_cache = prefix_cache
    runner = Runner(StarterSuite(), ModelClient("local/smollm2"), concurrency=1)
    generating = engine.seconds
    start = time.perf_counter()
    for task in tasks:  # one at a time, in order: consecutive rollouts share the harness prefix
        await runner.run_one(harness, task, seed=0)
    wall = time.perf_counter() - start
    engine.prefix_cache = True
    return wall / len(tasks), (engine.seconds - generating) / len(tasks)


async def main(args: argparse.Namespace) -> None:
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    folder = Path(tempfile.mkdtemp())
    cfg = SearchConfig.of(objective="joint", env="starter", model="local/smollm2", rounds=args.rounds,
                       proposals=args.proposals, space=space_file(folder, args.tool_format, args.max_steps, args.max_tokens, args.few_shot),
                       runs_dir=str(out), tracking_uri=None, concurrency=args.concurrency, sources=args.sources,
                       epochs=args.epochs, name="search",
                       proposer="rules", accept="paired")  # the settings bench.md's figures were measured with
    started = time.perf_counter()
    result = await Search(cfg).run()
    search_s = time.perf_counter() - started
    summary = result.summary
    print(f"search: {summary['rollouts']} rollouts in {search_s:.0f} s; stop: {summary.get('stop_reason')}; "
          f"selected round {summary['selected']['round']} ({result.selected.harness.hash})")
    for row in result.ledger:
        print(f"  R{row['round']}.{row['slot']} {row['edit'] or 'R0'}: joint {row['objective']['value']} "
              f"(n={row['objective']['n']}) {'ACCEPTED' if row['accepted'] else 'rejected'}: {row['reason'][:90]}")

    suite = StarterSuite()
    heldout = select_tasks(suite.tasks("heldout"), args.heldout_sources)
    runner = Runner(suite, ModelClient("local/smollm2"), RolloutCache(out / "heldout-rollouts"),
                    concurrency=args.concurrency)
    seeds = cfg.seeds
    r0 = await evaluate(runner, result.r0.harness, heldout, seeds)
    chosen = await evaluate(runner, result.selected.harness, heldout, seeds)
    print(f"held-out ({len(heldout)} tasks, {len({t.source_id for t in heldout})} sources, {len(seeds)} seed(s)):")
    for key in ("strict_sa", "solve", "false_abstention", "joint"):
        print(f"  {key:17} R0 {rate(r0.scorecard, key):22} selected {rate(chosen.scorecard, key)}")
    diff = paired_difference(chosen, r0, "joint")
    if diff["n"]:
        print(f"  paired joint difference (selected - R0): {diff['diff']:+.3f}, 95% CI [{diff['ci'][0]:+.3f}, "
              f"{diff['ci'][1]:+.3f}], n={diff['n']} rollouts over {diff['n_sources']} sources"
              + ("; the CI excludes 0" if diff["ci"][0] > 0 or diff["ci"][1] < 0 else "; the CI includes 0"))
    else:
        print("  paired joint difference: n/a (no rollout valid for both)")

    timing = select_tasks(heldout, args.timing_sources)
    with_cache = await per_rollout_seconds(result.r0.harness, timing, prefix_cache=True)
    without = await per_rollout_seconds(result.r0.harness, timing, prefix_cache=False)
    print(f"prefix cache, R0 on {len(timing)} held-out tasks one at a time: {with_cache[0]:.2f} s/rollout with, "
          f"{without[0]:.2f} s/rollout without (llama.cpp {with_cache[1]:.2f} vs {without[1]:.2f} s); "
          f"ratio without/with {without[0] / with_cache[0]:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=4, help="search-split sources (2 tasks each)")
    parser.add_argument("--heldout-sources", type=int, default=4)
    parser.add_argument("--timing-sources", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--proposals", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--tool-format", default="native", choices=["native", "constrained", "text"])
    parser.add_argument("--few-shot", default="chatml", choices=["chatml", "plain", "none"],
                        help="R0's few_shot component: the shipped tool-call examples in this style")
    parser.add_argument("--max-steps", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--out", default="runs/bench-realmodel")
    asyncio.run(main(parser.parse_args()))
