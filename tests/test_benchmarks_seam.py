"""The benchmark seam: scorers dispatch by task metadata, objectives read per-trial values."""

import pytest

from harnessx.benchmarks import benchmark_of, get_benchmark, objectives
from harnessx.errors import InputError
from harnessx.scoring import Scorecard, TaskScore
from harnessx.scoring.objective import Objective
from harnessx.scoring.rate import MeanValue
from harnessx.search.objectives import get_objective
from harnessx.tasks import Task


def _score(task_id: str, valid: bool = True, **values: float) -> TaskScore:
    return TaskScore(task_id=task_id, seed=0, feasible=True, family=None, source_id=task_id, split="search",
                     valid=valid, exclusion=None if valid else "env_failure", solved=True, values=values)


def test_tasks_without_a_benchmark_key_are_scored_by_asa():
    task = Task(id="t", env="toy", split="search", feasible=True, source_id="t", instruction="x")
    assert benchmark_of(task).name == "asa"
    with pytest.raises(InputError, match="unknown benchmark"):
        get_benchmark("nosuch")


def test_asa_objectives_are_registered_and_unknown_ones_are_refused():
    assert {"sa", "joint"} <= set(objectives())
    assert get_objective("joint").value_key is None
    with pytest.raises(InputError, match="unknown objective"):
        get_objective("nosuch")


def test_mean_value_counts_valid_trials_only_and_has_an_interval():
    mean = MeanValue.of([1.0, 0.5, None, 0.0])
    assert (mean.n, mean.excluded, mean.value) == (3, 1, 0.5)
    lo, hi = mean.ci
    # sample sd of (1, .5, 0) is 0.5; half-width 1.96 * 0.5 / sqrt(3) = 0.5658
    assert lo == 0.0 and hi == pytest.approx(1.0) and 0.5 - 0.5658 < lo + 1e-9
    assert MeanValue.of([0.4, 0.6]).ci == pytest.approx((0.5 - 1.96 * (0.02 ** 0.5) / 2 ** 0.5,
                                                         0.5 + 1.96 * (0.02 ** 0.5) / 2 ** 0.5))


def test_an_objective_with_a_value_key_reads_benchmark_values_and_skips_invalid_trials():
    scores = [_score("a", fass=1.0), _score("b", fass=0.25), _score("c", valid=False)]
    card = Scorecard.from_scores(scores)
    objective = Objective("fass-test", ("feasible",), value_key="fass")
    rate = objective.rate(card)
    assert (rate.n, rate.excluded, rate.value) == (2, 1, 0.625)
    assert [objective.trial_value(s) for s in scores] == [1.0, 0.25, None]
    assert card.to_dict()["values"]["fass"]["n"] == 2


def test_a_search_refuses_an_objective_its_tasks_do_not_measure(tmp_path):
    from harnessx.envs.toy import ToySuite
    from harnessx.search import Search, SearchConfig

    cfg = SearchConfig.of(objective="kas", env="toy", runs_dir=str(tmp_path), tracking_uri=None)
    with pytest.raises(InputError, match="'kas' is not measured by any search task of --env toy"):
        Search(cfg, suite=ToySuite(2))
    assert not (tmp_path / "kas-toy").exists()
