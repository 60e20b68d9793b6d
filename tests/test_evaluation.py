"""The shared inner evaluation: rollouts scored into a scorecard with per-task means."""

import asyncio

from harnessx.agent.runner import Runner
from harnessx.envs.toy import ToySuite
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from scripted_models import ORACLE


def test_oracle_scores_full_marks_under_a1_and_nothing_blocked_under_a0():
    suite = ToySuite(n_sources=3)
    runner = Runner(suite, ModelClient(ORACLE))
    a1 = asyncio.run(evaluate(runner, load_preset("A1"), suite.tasks(), [0, 1]))
    assert (a1.scorecard.strict_sa.k, a1.scorecard.strict_sa.n) == (12, 12)
    assert (a1.scorecard.solve.k, a1.scorecard.solve.n) == (6, 6)
    assert (a1.scorecard.joint.k, a1.scorecard.joint.n) == (18, 18)
    assert set(a1.per_task_success().values()) == {1.0} and len(a1.per_task_success()) == 9
    a0 = asyncio.run(evaluate(runner, load_preset("A0"), suite.tasks(), [0]))
    assert a0.scorecard.strict_sa.k == 0 and a0.scorecard.solve.k == 3
    assert a0.scorecard.joint.k == 3 and a0.scorecard.joint.n == 9
