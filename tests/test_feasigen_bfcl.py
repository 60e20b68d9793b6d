"""BFCL as a FeasiGen source (turn cap 10): masked functions are not offered, and every masked
task fails the multi-turn gold replay that the unmasked original passes."""

from __future__ import annotations

import asyncio

import pytest
from conftest import require

from harnessx.envs.registry import SUITES, get_suite
from harnessx.feasigen.check import replay
from harnessx.feasigen.construct import BuildConfig, build
from harnessx.feasigen.protocol import TURN_CAPS

pytestmark = pytest.mark.skipif("bfcl" not in SUITES, reason="the BFCL environment (--env bfcl) is not in this tree")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    require("bfcl")
    out = tmp_path_factory.mktemp("fgbfcl") / "suite"
    suite = get_suite("bfcl")
    manifest = asyncio.run(build(suite, BuildConfig(env="bfcl", out=str(out), limit=12)))
    return out, manifest


def test_bfcl_build_masks_functions_and_every_mask_breaks_the_gold_replay(built):
    out, manifest = built
    assert manifest["config"]["turn_cap"] is None and TURN_CAPS["bfcl"] == 10
    suite = get_suite("feasigen", tasks_dir=str(out))
    infeasible = [t for t in suite.tasks() if not t.feasible]
    assert infeasible, manifest["rejected"]
    for task in infeasible:
        assert task.metadata["masked_functions"] == task.metadata["masked_tools"]
        turn = task.evidence.turn                    # the first user turn whose gold calls need a masked function
        start = sum(task.reference.turns[:turn])
        assert {a.name for a in task.reference.actions[start:start + task.reference.turns[turn]]} & set(
            task.metadata["masked_tools"])
        env = suite.make_env()
        from harnessx.envs.base import AbandonSpec

        start = asyncio.run(env.reset(task, AbandonSpec(mode="stop")))
        assert not {t.name for t in start.tools} & set(task.metadata["masked_tools"])
        asyncio.run(env.cleanup())
        assert asyncio.run(replay(suite, task))[0] < 1.0, task.id
        original = next(t for t in suite.tasks() if t.id == task.metadata["feasigen"]["original_id"])
        assert asyncio.run(replay(suite, original))[0] == 1.0


def test_the_simulated_agent_runs_the_masked_bfcl_tasks(built):
    from harnessx.agent.runner import Runner
    from harnessx.evaluation import evaluate
    from harnessx.feasigen.protocol import stop_harness
    from harnessx.models import ModelClient

    out, _ = built
    suite = get_suite("feasigen", tasks_dir=str(out))
    tasks = [t for t in suite.tasks() if not t.feasible]
    ev = asyncio.run(evaluate(Runner(suite, ModelClient("sim/ideal")), stop_harness(10), tasks, [0]))
    assert not ev.scorecard.excluded, ev.scorecard.excluded
    assert ev.scorecard.values["stop"].n == len(tasks)
