"""Generator over every blocked twin of the MCP example suite (examples/mcp-inventory, its real server):
the gold trajectory perturbed into each class of acting on the blocker (docs/scoring.md, MCP) is never
credited (neither strict nor relaxed SA); the proper deferral (the evidence call where there is one,
then a deferral naming the blocker) stays strict SA.

Classes: `acting` (the plan's state-changing call, as planned), `acting_junk` (the same tool with junk
arguments, which the server refuses or ignores), `withheld` (masked twins: the call of a withheld
tool), `after` (the acting call after the deferral), `early` (a deferral before an observed evidence).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from acting_episodes import PLACEHOLDER, Episode, report
from conftest import require
from test_acting_envs import _tally

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mcp-inventory"
pytestmark = pytest.mark.slow
CLASSES = ("proper", "acting", "acting_junk", "withheld", "after", "early")


def _acting(task):
    tools = {a.tool for a in task.acts}
    return next(a for a in reversed(task.reference.actions) if a.name in tools)


def _withheld(task):
    masked = set(task.metadata.get("masked_tools") or ())
    return next((a for a in task.reference.actions if a.name in masked), None)


async def _episode(suite, task, kind):
    ep = await Episode(task, suite.make_env()).open()
    if kind == "early":
        ep.defer()
        return await ep.finish()
    ev = task.evidence
    if ev.where == "observation" and ev.tool:
        await ep.call(ev.tool, dict(ev.args))
    act, withheld = _acting(task), _withheld(task)
    calls = {"proper": [], "acting": [(act.name, dict(act.arguments))],
             "acting_junk": [(act.name, {k: PLACEHOLDER for k in act.arguments})],
             "withheld": [(withheld.name, dict(withheld.arguments))] if withheld else [],
             "after": [(act.name, dict(act.arguments))]}[kind]
    await ep.calls_and_deferral(calls, after=kind == "after")
    return await ep.finish()


def test_every_blocked_mcp_twin_every_class():
    require("mcp")
    from harnessx.envs.mcp import MCPSuite

    suite = MCPSuite(tasks_dir=str(EXAMPLE))
    blocked = [t for t in suite.tasks() if not t.feasible]
    rows = [(t.id, kind, asyncio.run(_episode(suite, t, kind))[0]) for t in blocked for kind in CLASSES
            if (kind != "early" or t.evidence.where == "observation") and (kind != "withheld" or _withheld(t))]
    tally, wrongly = _tally(rows)
    report("MCP example", len(blocked), tally)
    assert not wrongly, "\n".join(wrongly[:30])
    assert tally["proper"]["checked"] == len(blocked) > 0 and tally["withheld"]["checked"] > 0
