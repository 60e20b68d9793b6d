"""GEPA's per-task scores: the search objective's value, and a task with no valid rollout is never
scored 0 (that would count an environment or model failure as the agent's)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from harnessx.errors import HarnessXError
from harnessx.evaluation import Evaluation
from harnessx.scoring import TaskScore
from harnessx.search.gepa import batch_scores


def score(task_id: str, seed: int, *, valid: bool = True, solved: bool = False, kas: float | None = None):
    return TaskScore(task_id=task_id, seed=seed, feasible=True, family=None, source_id=task_id, split="search",
                     valid=valid, exclusion=None if valid else "environment_failure", solved=solved if valid else None,
                     values={} if kas is None else {"kas": kas})


class FakeEvaluation:
    per_task_success = Evaluation.per_task_success  # the real reduction, over these scores

    def __init__(self, scores):
        self.scores = tuple(scores)


def tasks(*ids):
    return [SimpleNamespace(id=i) for i in ids]


def test_an_excluded_task_gets_the_batch_mean_of_valid_tasks_not_zero():
    evaluation = FakeEvaluation([score("a", 0, solved=True), score("a", 1, solved=True),
                                 score("b", 0, solved=False), score("b", 1, solved=True),
                                 score("c", 0, valid=False), score("c", 1, valid=False)])
    # a: 1.0, b: 0.5, c: no valid rollout -> mean of valid (1.0 + 0.5) / 2 = 0.75, not 0
    assert batch_scores(evaluation, tasks("a", "b", "c"), None) == [1.0, 0.5, 0.75]


def test_the_objective_value_key_is_scored_not_asa_success():
    evaluation = FakeEvaluation([score("a", 0, solved=True, kas=0.25), score("b", 0, solved=False, kas=0.75)])
    assert batch_scores(evaluation, tasks("a", "b"), "kas") == [0.25, 0.75]
    assert batch_scores(evaluation, tasks("a", "b"), None) == [1.0, 0.0]


def test_a_batch_with_no_valid_rollout_is_an_error_naming_why():
    evaluation = FakeEvaluation([score("a", 0, valid=False), score("b", 0, valid=False)])
    with pytest.raises(HarnessXError, match="no valid rollout.*a: environment_failure"):
        batch_scores(evaluation, tasks("a", "b"), None)


def test_a_gepa_candidate_has_the_hash_of_the_file_it_is_saved_to(tmp_path):
    from harnessx.harness import Harness
    from harnessx.search.gepa import HarnessAdapter
    from harnessx.search.space import load_space

    space = load_space()
    start = space.initial()
    # GEPA's candidates hold every component of the space, empty where the start has none
    components = sorted({lib.component for lib in space.libraries.values()})
    assert any(not start.text(c) for c in components)
    candidate = HarnessAdapter(None, start, space, offline=True).harness({c: start.text(c) for c in components})
    assert candidate.hash == start.hash
    assert Harness.load(candidate.save(tmp_path / "selected.yaml")).hash == candidate.hash
