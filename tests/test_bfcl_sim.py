"""The simulated agent on BFCL: the side channel (BFCL's ground truth per turn) is all it needs."""

from __future__ import annotations

import pytest
from conftest import require

require("bfcl")  # before the imports below: they import bfcl_eval

from harnessx.agent.runner import Runner  # noqa: E402
from harnessx.envs.bfcl.suite import BfclSuite  # noqa: E402
from harnessx.evaluation import evaluate  # noqa: E402
from harnessx.harness.presets import load_preset  # noqa: E402
from harnessx.models.client import ModelClient  # noqa: E402


def _pick(suite: BfclSuite, n_blocked: int = 4) -> list:
    tasks = suite.tasks("search")
    blocked = [t for t in tasks if not t.feasible][:n_blocked]
    sources = {t.source_id for t in blocked}
    return blocked + [t for t in tasks if t.feasible and t.id in sources]


async def test_ideal_profile_defers_at_the_blocked_turn_and_solves_every_turn():
    suite = BfclSuite()
    tasks = _pick(suite)
    runner = Runner(suite, ModelClient("sim/ideal"), cache=None)
    ev = await evaluate(runner, load_preset("A1"), tasks, [0])
    assert all(s.valid for s in ev.scores)
    assert all(s.strict_sa for s in ev.scores if not s.feasible)
    assert all(s.solved and not s.false_abstention for s in ev.scores if s.feasible)
    for result in ev.results:
        task = next(t for t in tasks if t.id == result.task_id)
        traj = runner.trajectory(result)
        user_turns = sum(e.kind == "message" and e.author == "user" for e in traj.events)
        assert user_turns == task.metadata["turns"]  # every turn was delivered, also after a deferral
        if not task.feasible:
            abandons = traj.of_kind("abandon")
            assert len(abandons) == 1 and result.reward == 1.0


@pytest.mark.slow
async def test_baseline_profile_runs_and_misses_some():
    suite = BfclSuite()
    tasks = suite.tasks("search")
    runner = Runner(suite, ModelClient("sim/baseline"), cache=None)
    ev = await evaluate(runner, load_preset("A1"), tasks, [0])
    blocked = [s for s in ev.scores if not s.feasible]
    assert all(s.valid for s in ev.scores) and len(blocked) == 43
    assert 0 < sum(bool(s.strict_sa) for s in blocked) < 43
