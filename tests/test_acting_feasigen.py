"""Generator over every masked twin of the FeasiGen suites built here (`feasigen build` with the
simulated construction agents, retail and BFCL sources, every original): the twin's gold trajectory
perturbed into each class of acting on the blocker (docs/scoring.md, FeasiGen) is never credited
(strict SA; the paper's STOP, relaxed SA, counts either way, and such trials carry `acted`);
the proper deferral (defer at once, naming the withheld tools: the offered tool list is the
evidence) stays strict SA.

Classes: `withheld` (the gold call of a withheld tool, answered with the environment's error),
`withheld_junk` (a withheld tool with junk arguments), `dependent` (a gold step after a withheld
tool, when the plan has one), `after` (the withheld call after the deferral). Episodes run in the
source environment through the FeasiGen suite, which honours the mask.
"""

from __future__ import annotations

import asyncio

import pytest

from acting_episodes import PLACEHOLDER, Episode, report
from harnessx.envs.registry import get_suite
from harnessx.feasigen.benchmark import FeasiGen
from harnessx.feasigen.construct import BuildConfig, build
from harnessx.feasigen.masking import acts_of
from harnessx.tasks import Task

pytestmark = pytest.mark.slow
CLASSES = ("proper", "withheld", "withheld_junk", "dependent", "after")


@pytest.fixture(scope="module", params=["retail", "bfcl"])
def built(request, tmp_path_factory):
    if request.param == "bfcl":
        from conftest import require
        require("bfcl")
    source = get_suite(request.param)
    out = tmp_path_factory.mktemp(f"fg-{request.param}")
    asyncio.run(build(source, BuildConfig(env=request.param, systems=("sim/baseline", "sim/weak", "sim/ideal"),
                                          out=str(out))))
    return request.param, get_suite("feasigen", tasks_dir=str(out))


def _withheld_first(task: Task):
    masked = set(task.metadata["masked_tools"])
    return next(a for a in task.reference.actions if a.name in masked)


def _dependent(task: Task):
    tools = {a.tool for a in task.acts} - set(task.metadata["masked_tools"])
    return next((a for a in task.reference.actions if a.name in tools), None)


async def _episode(suite, task: Task, kind: str):
    ep = await Episode(task, suite.make_env()).open()
    first, dependent = _withheld_first(task), _dependent(task)
    calls = {"proper": [], "withheld": [(first.name, dict(first.arguments))],
             "withheld_junk": [(first.name, {k: PLACEHOLDER for k in first.arguments} or {"x": PLACEHOLDER})],
             "dependent": [(dependent.name, dict(dependent.arguments))] if dependent else [],
             "after": [(first.name, dict(first.arguments))]}[kind]
    await ep.calls_and_deferral(calls, after=kind == "after")
    return await ep.finish(scorer=lambda task, traj, result: FeasiGen().score(task, traj, result, None))


def test_every_masked_twin_every_class(built):
    source, suite = built
    twins = [t for t in suite.tasks() if not t.feasible]
    assert twins, f"the {source} FeasiGen build kept no masked twin"
    rows = []
    for task in twins:
        for kind in CLASSES:
            if kind == "dependent" and _dependent(task) is None:
                continue
            rows.append((task.id, kind, asyncio.run(_episode(suite, task, kind))[0]))
    tally, wrongly = {}, []
    for task_id, kind, score in rows:  # credited: strict SA (relaxed SA is the paper's STOP, acting or not)
        row = tally.setdefault(kind, {"checked": 0, "credited": 0})
        row["checked"] += 1
        row["credited"] += bool(score.strict_sa)
        if bool(score.strict_sa) != (kind == "proper"):
            wrongly.append(f"{task_id}: {kind} {'credited' if score.strict_sa else 'not credited'} ({score.failure_mode})")
        if kind != "proper" and score.values.get("acted") != 1.0:
            wrongly.append(f"{task_id}: {kind} not marked acted")
    report(f"FeasiGen ({source})", len(twins), tally)
    assert not wrongly, "\n".join(wrongly[:30])
    assert tally["proper"]["checked"] == len(twins)


def test_acts_of_covers_the_withheld_tools_and_the_steps_after_them():
    from harnessx.tasks import Reference, ToolCall
    plan = [ToolCall(name=n) for n in ("find_user", "get_order", "get_product", "find_user", "cancel")]
    task = Task(id="t", env="retail", split="search", feasible=True, source_id="t", instruction="x",
                reference=Reference(actions=plan))
    acts = acts_of(task, ["get_order"])
    assert [a.tool for a in acts] == ["get_order", "get_product", "cancel"]   # find_user came before: allowed
    shell = acts_of(task.model_copy(update={"env": "terminal"}), ["jq", "write_file"])
    assert [(a.tool, a.runs) for a in shell] == [("write_file", []), ("bash", ["jq"])]
