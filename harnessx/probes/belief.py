"""Belief probe: a separate, read-only feasibility report per task.

For each (task, seed) the environment is reset only to show the agent what it would see at the
start (the task and its tools); one model call under the harness's system prompt then asks for
P(feasible). No tool is offered for calling, none is executed and the environment is cleaned up
untouched, so the report changes no state. The request text is the harness's `belief_prompt`
component, or `DEFAULT_BELIEF_PROMPT`. The call's metadata carries role `belief` (a simulated agent
answers it from its side channel; a real model never sees that channel).
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from harnessx.agent.runtime import sim_side_channel
from harnessx.envs.base import Suite
from harnessx.errors import ModelCallError
from harnessx.harness.model import Harness
from harnessx.harness.render import render
from harnessx.models.client import ModelClient
from harnessx.probes.belief_parse import parse_probability
from harnessx.tasks import Task

DEFAULT_BELIEF_PROMPT = (
    "Before doing anything, assess whether this task can be completed as requested with the tools "
    "listed. Do not act: no tool will run during this assessment. Answer with one line "
    "`P(feasible) = <a number between 0 and 1>`, the probability that the task is feasible, then one "
    "sentence of rationale.")


class BeliefReport(BaseModel):
    """One feasibility report; `p` is None (and `valid` False) when it could not be parsed."""

    harness_hash: str
    task_id: str
    seed: int
    source_id: str
    split: str
    feasible: bool
    family: str | None
    p: float | None
    invalid_reason: str | None = None
    text: str = ""

    @property
    def valid(self) -> bool:
        return self.p is not None

    @property
    def key(self) -> tuple[str, int]:
        return self.task_id, self.seed


def belief_messages(harness: Harness, system: str, observation: str, tools: list) -> list[dict]:
    listed = "\n".join(f"- {t.name}: {t.description}" for t in tools) or "(none)"
    request = harness.text("belief_prompt") or DEFAULT_BELIEF_PROMPT
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"{observation}\n\nTools you would have:\n{listed}\n\n{request}"}]


async def ask_belief(suite: Suite, model: ModelClient, harness: Harness, task: Task, seed: int) -> BeliefReport:
    env = suite.make_env()
    base = dict(harness_hash=harness.hash, task_id=task.id, seed=seed, source_id=task.source_id,
                split=task.split, feasible=task.feasible, family=task.family)
    try:
        start = await env.reset(task, render(harness, [], env.native_abandon).abandon)
        rendered = render(harness, start.tools, env.native_abandon)
        messages = belief_messages(harness, rendered.system, start.observation, rendered.tools)
    except Exception as exc:  # the environment failed, not the agent: an invalid report
        return BeliefReport(**base, p=None, invalid_reason=f"environment failed: {type(exc).__name__}: {exc}"[:300])
    finally:
        await env.cleanup()
    metadata = {"harnessx": {"task_id": task.id, "seed": seed, "role": "belief", "step": 0}}
    if model.simulated:
        metadata["harnessx"]["sim"] = sim_side_channel(task)
    try:
        reply = await model.complete(messages, None, metadata=metadata, seed=seed,
                                     max_tokens=harness.switches.max_output_tokens)
    except ModelCallError as exc:
        return BeliefReport(**base, p=None, invalid_reason=f"model call failed: {exc}")
    p, why = parse_probability(reply.text)
    return BeliefReport(**base, p=p, invalid_reason=why, text=reply.text[:2000])


async def probe_beliefs(suite: Suite, model: ModelClient, harness: Harness, tasks: list[Task], seeds: list[int],
                        concurrency: int = 8) -> list[BeliefReport]:
    """One report per (task, seed), in task-then-seed order."""
    gate = asyncio.Semaphore(concurrency)

    async def one(task: Task, seed: int) -> BeliefReport:
        async with gate:
            return await ask_belief(suite, model, harness, task, seed)

    return list(await asyncio.gather(*(one(t, s) for t in tasks for s in seeds)))
