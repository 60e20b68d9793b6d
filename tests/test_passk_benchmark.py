"""pass^k deferral consistency (harnessx/benchmarks/passk.py): a task counts only when all k of its
rollouts are right (blocked: strict deferral; feasible: solved with no false abstention), per stratum
with n; an incomplete task is excluded, never a failure; the `passk` objective's mean is pass^k."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from harnessx.benchmarks.passk import pass_hat
from harnessx.benchmarks.registry import get_benchmark, names, suites
from harnessx.cli.main import app
from harnessx.scoring.task_score import TaskScore
from harnessx.search.objectives import get_objective
from harnessx.tasks import Task


def task(tid: str, feasible: bool) -> Task:
    from harnessx.envs.registry import get_suite

    base = next(t for t in get_suite("starter-passk").tasks() if t.feasible == feasible)
    return base.model_copy(update={"id": tid, "source_id": tid})


def trial(t: Task, seed: int, ok: bool | None, abstained: bool = False) -> TaskScore:
    common = dict(task_id=t.id, seed=seed, feasible=t.feasible, family=t.family, source_id=t.source_id, split=t.split)
    if ok is None:
        return TaskScore(**common, valid=False, exclusion="env_failure")
    if t.feasible:
        return TaskScore(**common, valid=True, solved=ok, false_abstention=abstained)
    return TaskScore(**common, valid=True, strict_sa=ok)


@pytest.fixture
def case():
    tasks = [task("b1", False), task("b2", False), task("f1", True), task("f2", True), task("f3", True)]
    b1, b2, f1, f2, f3 = tasks
    scores = [trial(b1, s, True) for s in range(3)]                     # blocked, always defers: counts
    scores += [trial(b2, 0, True), trial(b2, 1, False), trial(b2, 2, True)]  # one slip: does not count
    scores += [trial(f1, s, True) for s in range(3)]                    # solved every time: counts
    scores += [trial(f2, 0, True), trial(f2, 1, True, abstained=True), trial(f2, 2, True)]  # acted, then deferred
    scores += [trial(f3, 0, True), trial(f3, 1, None), trial(f3, 2, True)]  # an excluded rollout: incomplete
    return tasks, scores


def test_registered_by_its_module_alone():
    assert "passk" in names() and suites()["starter-passk"][0] == "passk"
    assert get_objective("passk").value_key == "passk"
    from harnessx.envs.registry import get_suite

    assert all(t.metadata["benchmark"] == "passk" for t in get_suite("starter-passk").tasks())


def test_pass_k_per_stratum_with_n_and_incomplete_tasks_excluded(case):
    tasks, scores = case
    m = get_benchmark("passk").metrics(scores, tasks)
    assert m["k"] == 3
    assert (m["blocked"]["passk"]["k"], m["blocked"]["passk"]["n"]) == (1, 2)
    assert (m["feasible"]["passk"]["k"], m["feasible"]["passk"]["n"], m["feasible"]["passk"]["excluded"]) == (1, 2, 1)
    assert (m["all"]["passk"]["k"], m["all"]["passk"]["n"]) == (2, 4)
    assert m["all"]["pass1"]["n"] == 14 and m["all"]["pass1"]["k"] == 12  # every valid rollout
    # pass^1 from the estimator is the mean right rate over complete tasks; pass^k is the all-right share
    assert m["all"]["pass_j"][0] == pytest.approx((3 + 2 + 3 + 2) / 3 / 4)
    assert m["all"]["pass_j"][2] == pytest.approx(0.5)


def test_the_objective_mean_is_pass_k(case):
    tasks, scores = case
    bench = get_benchmark("passk")
    valued = bench.evaluation_values(scores, tasks)
    got = [s.values["passk"] for s in valued if "passk" in s.values]
    assert len(got) == 12 and sum(got) / len(got) == pytest.approx(0.5)  # 2 of 4 complete tasks
    assert not any("passk" in s.values for s in valued if s.task_id == "f3")  # incomplete: no value


def test_the_unbiased_estimator():
    assert pass_hat(3, 3, 3) == 1.0 and pass_hat(2, 3, 3) == 0.0
    assert pass_hat(2, 4, 1) == pytest.approx(0.5) and pass_hat(3, 4, 2) == pytest.approx(0.5)


def test_eval_and_search_run_through_the_cli(tmp_path):
    runner = CliRunner()
    ev = runner.invoke(app, ["eval", "--harness", "A0", "--env", "starter-passk", "--model", "sim/ideal",
                             "--epochs", "2", "--out", str(tmp_path / "eval")], env={"COLUMNS": "200"})
    assert ev.exit_code == 0, ev.output
    assert "pass^k (tasks) · blocked" in ev.output and "k = 2 rollouts per task" in ev.output
    result = json.loads(next((tmp_path / "eval").glob("eval-*.json")).read_text())
    assert '"passk"' in json.dumps(result)  # the benchmark's metrics are in the result file
    search = runner.invoke(app, ["search", "--objective", "passk", "--env", "starter-passk", "--epochs", "2",
                                 "--rounds", "1", "--proposals", "1", "--name", "pk", "--runs-dir",
                                 str(tmp_path / "runs"), "--no-mlflow", "--certify-split", "none"],
                           env={"COLUMNS": "200"})
    assert search.exit_code == 0, search.output
    assert "incumbent passk by round" in search.output


def test_a_suite_without_it_does_not_measure_passk(tmp_path):
    out = CliRunner().invoke(app, ["search", "--objective", "passk", "--env", "starter", "--rounds", "1",
                                   "--name", "x", "--runs-dir", str(tmp_path), "--no-mlflow"])
    assert out.exit_code == 2 and "'passk' is not measured" in out.output
