"""Conformance of the BFCL environment with BFCL itself.

- `gold_reward`: BFCL's ground-truth calls played through `BfclEnv` (turn by turn, as an agent
  would) must score 1 wherever BFCL's checker passes the ground truth on its own.
- `nothing_reward`: an agent that never calls anything must score 0 on every entry with a call.
`conformance(categories)` counts both per category and names every entry that does not conform.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from harnessx.envs.base import AbandonSpec
from harnessx.envs.bfcl.api import build_instances, parse_call
from harnessx.envs.bfcl.build import entry_task
from harnessx.envs.bfcl.checker import check
from harnessx.envs.bfcl.data import Entry, load_category
from harnessx.envs.bfcl.env import BfclEnv

TOOL = AbandonSpec(mode="tool")


async def _play(entry: Entry, turns: list[list[str]], bfcl_dir: str | None = None) -> float:
    env = BfclEnv(bfcl_dir)
    await env.reset(entry_task(entry, "search"), TOOL)
    instances = build_instances(entry)
    for index, turn in enumerate(turns):
        if index:
            if await env.user_reply("(turn done)") is None:
                break
        for text in turn:
            await env.execute(parse_call(text, instances))
    while await env.user_reply("(turn done)") is not None:
        pass
    reward = await env.verify()
    await env.cleanup()
    return reward


def gold_reward(entry: Entry, bfcl_dir: str | None = None) -> float:
    return asyncio.run(_play(entry, entry.ground_truth, bfcl_dir))


def nothing_reward(entry: Entry, bfcl_dir: str | None = None) -> float:
    return asyncio.run(_play(entry, [], bfcl_dir))


@dataclass
class Conformance:
    category: str
    entries: int = 0
    checker_passes_gold: int = 0
    env_passes_gold: int = 0
    needs_a_call: int = 0
    nothing_fails: int = 0
    problems: list[str] = field(default_factory=list)


def conformance(category: str, bfcl_dir: str | None = None) -> Conformance:
    out = Conformance(category)
    for entry in load_category(category, bfcl_dir):
        out.entries += 1
        direct = check(entry, entry.ground_truth)
        out.checker_passes_gold += direct.valid
        through_env = gold_reward(entry, bfcl_dir)
        out.env_passes_gold += through_env == 1.0
        if direct.valid and through_env != 1.0:
            out.problems.append(f"{entry.id}: gold passes BFCL's checker but scores {through_env} through the env")
        if not direct.valid:
            out.problems.append(f"{entry.id}: BFCL's checker fails its own ground truth ({direct.error_type})")
        if any(entry.ground_truth):
            out.needs_a_call += 1
            nothing = nothing_reward(entry, bfcl_dir)
            out.nothing_fails += nothing == 0.0
            if nothing != 0.0:
                out.problems.append(f"{entry.id}: a do-nothing agent scores {nothing}")
    return out
