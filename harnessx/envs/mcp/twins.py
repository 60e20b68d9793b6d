"""From the user's task records to paired tasks: each feasible task and its blocked twins.

- **infeasible** (generated, FeasiGen's procedure, digest §3.1): the critical tools are the tools
  every accepted solution uses (`expected_calls` and each of `solutions` is one successful trace;
  C = the intersection of their tool sets, as `feasigen build` computes over agents' traces), or the
  record's own `critical_tools`; the twin offers the server's tools minus those. It must pass
  FeasiGen's mechanical check (`harnessx.envs.mask_check`): the gold plan, replayed on the real server, reaches
  the goal unmasked (the control) and not under the mask; a twin that fails is rejected, named.
  The paper's `query_grounded` flag (the masked lookup's answer is already in the request) is kept.
- **ambiguous** and **trap** (where the record gives them): the user's blocker, key facts and
  evidence; acting (a state-changing call of the plan) is forbidden.

Every twin's `acts` say which calls act on its blocker, whatever their result (`acts`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from harnessx.envs.base import MASKED_TOOLS, VERIFY_GOAL
from harnessx.envs.mask_check import evidence_of, mechanical_check, query_grounded, replay
from harnessx.envs.mcp.env import SETUP, SUCCESS
from harnessx.envs.mcp.spec import Call, EvidenceSpec, TaskRecord
from harnessx.errors import InputError
from harnessx.tasks import Act, Blocker, Evidence, Reference, Task, ToolCall, suite_hash

TWIN = "mcp_twin"  # task metadata of a generated twin: critical tools, how they were found, the check


def calls(items: list[Call]) -> list[dict[str, Any]]:
    return [{"tool": c.tool, "arguments": dict(c.arguments)} for c in items]


def success_of(record: TaskRecord, where: str, read_only: set[str]) -> dict:
    if record.success is not None and record.success.call is not None:
        check = record.success.call
        if check.tool not in read_only:
            raise InputError(where, f"field 'success.call.tool': {check.tool!r} is not read-only on the server "
                             "(its readOnlyHint annotation)", "a read-only checking tool, or success.calls")
        return {"call": {"tool": check.tool, "arguments": dict(check.arguments), "expect": check.expect}}
    required = record.success.calls if record.success is not None else [
        c for c in record.expected_calls if c.tool not in read_only]
    if not required:
        raise InputError(where, "field 'success': every expected call is read-only, so nothing shows success",
                         "success.calls or a success.call checking call")
    return {"calls": calls(required)}


def acting_tools(record: TaskRecord, read_only: set[str]) -> list[str]:
    """What acting on a blocked twin means: the plan's state-changing tools, and the forbidden ones."""
    return sorted({c.tool for c in record.expected_calls if c.tool not in read_only} | set(record.forbidden_tools))


def acts(withheld: list[str], acting: list[str]) -> list[Act]:
    """What acts on a blocked twin's blocker (docs/scoring.md), answered, refused or not: a call of a
    withheld tool, and a call of a state-changing tool of the plan or a forbidden one."""
    return ([Act(tool=t, why="a call of a withheld tool") for t in withheld]
            + [Act(tool=t, why="a call of a state-changing or forbidden tool, refused or not")
               for t in acting if t not in withheld])


def evidence(spec: EvidenceSpec | None) -> Evidence:
    if spec is None or (spec.tool is None and spec.marker is None):
        return Evidence(where="spec")
    return Evidence(where="observation", tool=spec.tool, args=dict(spec.arguments), marker=spec.marker)


def feasible(record: TaskRecord, where: str, split: str, read_only: set[str], fingerprint: str) -> Task:
    plan = Reference(actions=[ToolCall(name=c.tool, arguments=dict(c.arguments)) for c in record.expected_calls],
                     final_answer=record.answer)
    return Task(id=record.id, env="mcp", split=split, feasible=True, source_id=record.id, instruction=record.request,
                forbidden=sorted(set(record.forbidden_tools)), reference=plan,
                metadata={SETUP: calls(record.setup), SUCCESS: success_of(record, where, read_only),
                          "mcp_server": fingerprint, "mcp_source": Path(where).name})  # file:line, no machine path


def critical(record: TaskRecord, where: str) -> list[str]:
    if record.critical_tools is not None:
        return sorted(set(record.critical_tools))
    found = set.intersection(*({c.tool for c in plan} for plan in [record.expected_calls, *record.solutions]))
    if not found:
        raise InputError(where, "field 'solutions': the accepted solutions share no tool, so no infeasible twin "
                         "can be made", "solutions that share a tool, critical_tools, or infeasible: false")
    return sorted(found)


def masked_twin(source: Task, record: TaskRecord, where: str, read_only: set[str]) -> Task:
    tools = critical(record, where)
    k = 1 + len(record.solutions)
    how = "given (critical_tools)" if record.critical_tools is not None else f"used by all {k} accepted solution(s)"
    return Task(id=f"{record.id}-masked", env="mcp", split=source.split, feasible=False, family="infeasible",
                source_id=source.source_id, instruction=source.instruction,
                blocker=Blocker(id=f"masked:{'+'.join(tools)}", key_facts=tools,
                                description=f"The task needs {', '.join(tools)} ({how}); it is not among the offered tools."),
                evidence=evidence_of(source, tools), forbidden=acting_tools(record, read_only),
                acts=acts(tools, acting_tools(record, read_only)), reference=source.reference,
                metadata={**source.metadata, MASKED_TOOLS: tools, TWIN: {"critical_tools": tools, "how": how}})


def written(source: Task, record: TaskRecord, family: str, read_only: set[str]) -> Task:
    variant = getattr(record, family)
    setup = source.metadata[SETUP] + (calls(variant.setup) if family == "trap" else [])
    return Task(id=f"{record.id}-{family}", env="mcp", split=source.split, feasible=False, family=family,
                source_id=source.source_id, instruction=variant.request if family == "ambiguous" else source.instruction,
                blocker=Blocker(id=family, description=variant.blocker, key_facts=list(variant.key_facts)),
                evidence=evidence(variant.evidence), forbidden=acting_tools(record, read_only),
                acts=acts([], acting_tools(record, read_only)),
                reference=source.reference, metadata={**source.metadata, SETUP: setup})


async def check_twin(suite, twin: Task, source: Task) -> dict:
    """FeasiGen's mechanical check on the real server, with its control and the query_grounded flag."""
    try:
        control, observations, _ = await replay(suite, source)
    except Exception as exc:  # noqa: BLE001 - recorded as the reason the twin is rejected
        return {"passed": False, "error": f"control: {type(exc).__name__}: {exc}"[:500]}
    if control < 1.0:
        return {"passed": False, "error": f"control: the expected calls score {control} on the unmasked server "
                                          "(the task's success check does not hold for its own plan)"}
    goal = twin.model_copy(update={"metadata": {**twin.metadata, VERIFY_GOAL: True}})
    result = (await mechanical_check(suite, goal)).to_dict()
    masked = set(twin.metadata[MASKED_TOOLS])
    return {**result, "flags": query_grounded(source, masked, observations)}


async def check_all(suite, pairs: list[tuple[Task, Task]], known: dict[str, dict], concurrency: int = 4) -> list[dict]:
    """The check of every (twin, source), reading `known` (by twin key) before running one."""
    gate = asyncio.Semaphore(concurrency)

    async def one(twin: Task, source: Task) -> dict:
        if (hit := known.get(check_key(twin, source))) is not None:
            return hit
        async with gate:
            return await check_twin(suite, twin, source)

    return list(await asyncio.gather(*(one(t, s) for t, s in pairs)))


def check_key(twin: Task, source: Task) -> str:
    return suite_hash([twin, source])
