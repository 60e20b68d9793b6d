"""Comparison pieces: paired differences on hand-made scores (matched rollouts, strata, source-pair
clusters), run-directory contenders, settings the runs agree on, and the transfer labels."""

import json

import pytest

from harnessx.comparison.compare import transfer_rows
from harnessx.comparison.paired import paired_difference
from harnessx.comparison.runs import resolve_contenders, run_setting
from harnessx.errors import InputError
from harnessx.harness import load_preset
from harnessx.scoring import TaskScore


class FakeEvaluation:
    def __init__(self, scores):
        self.scores = tuple(scores)


def blocked(task, source, sa, seed=0, valid=True):
    return TaskScore(task_id=task, seed=seed, feasible=False, family="trap", source_id=source, split="heldout",
                     valid=valid, strict_sa=sa if valid else None, relaxed_sa=sa if valid else None,
                     exclusion=None if valid else "env_failure")


def feasible(task, source, solved, seed=0):
    return TaskScore(task_id=task, seed=seed, feasible=True, family=None, source_id=source, split="heldout",
                     valid=True, solved=solved, false_abstention=False)


def test_paired_difference_matches_rollouts_and_strata():
    first = FakeEvaluation([blocked("b1", "s1", True), blocked("b2", "s2", True), blocked("b3", "s3", False),
                            feasible("f1", "s1", True), feasible("f2", "s2", False)])
    second = FakeEvaluation([blocked("b1", "s1", False), blocked("b2", "s2", True, valid=False),
                             blocked("b3", "s3", False), feasible("f1", "s1", False), feasible("f2", "s2", False)])
    sa = paired_difference(first, second, "strict_sa", n_resamples=300)
    assert (sa["n"], sa["n_sources"]) == (2, 2)            # b2 invalid for the second harness: dropped
    assert sa["diff"] == pytest.approx(0.5)               # b1: 1−0, b3: 0−0
    joint = paired_difference(first, second, "joint", n_resamples=300)
    assert joint["n"] == 4 and joint["diff"] == pytest.approx(0.5)
    assert paired_difference(first, second, "solve", n_resamples=300)["diff"] == pytest.approx(0.5)


def test_source_pairs_resample_together_and_ci_is_seeded():
    # every source: blocked +1 and feasible −1 → each pair sums to zero, so any pair resample gives 0
    first = FakeEvaluation([s for i in range(6) for s in (blocked(f"b{i}", f"s{i}", True), feasible(f"f{i}", f"s{i}", False))])
    second = FakeEvaluation([s for i in range(6) for s in (blocked(f"b{i}", f"s{i}", False), feasible(f"f{i}", f"s{i}", True))])
    joint = paired_difference(first, second, "joint", n_resamples=500)
    assert joint["diff"] == 0 and joint["ci"] == [0.0, 0.0] and joint["n_sources"] == 6
    a = paired_difference(first, FakeEvaluation([blocked(f"b{i}", f"s{i}", i % 2 == 0) for i in range(6)]),
                          "strict_sa", n_resamples=500, seed=1)
    b = paired_difference(first, FakeEvaluation([blocked(f"b{i}", f"s{i}", i % 2 == 0) for i in range(6)]),
                          "strict_sa", n_resamples=500, seed=1)
    assert a == b and a["ci"][0] <= a["diff"] <= a["ci"][1]


def write_run(path, r0, selected, model="sim/baseline", env="toy"):
    path.mkdir(parents=True)
    r0.save(path / "r0.yaml")
    selected.save(path / "selected.yaml")
    (path / "config.json").write_text(json.dumps({"env": env, "model": model, "objective": "joint"}))
    return path


def test_run_dir_brings_r0_then_selected_and_identical_ones_once(tmp_path):
    run = write_run(tmp_path / "runs" / "s1", load_preset("A1"), load_preset("C"))
    labels = [c.label for c in resolve_contenders([str(run), "B"])]
    assert labels == ["s1:R0", "s1:selected", "B"]
    assert [c.label for c in resolve_contenders([str(run)], include_r0=False)] == ["s1:selected"]
    same = write_run(tmp_path / "runs" / "s2", load_preset("A1"), load_preset("A1"))
    assert [c.label for c in resolve_contenders([str(same)])] == ["s2:selected (=R0)"]


def test_settings_come_from_the_runs_and_must_agree(tmp_path):
    a = write_run(tmp_path / "a", load_preset("A1"), load_preset("C"))
    b = write_run(tmp_path / "b", load_preset("A1"), load_preset("C"), model="sim/weak")
    assert run_setting(resolve_contenders([str(a)]), "model") == "sim/baseline"
    with pytest.raises(InputError):
        run_setting(resolve_contenders([str(a), str(b)]), "model")


def test_transfer_puts_search_numbers_only_in_the_selection_column():
    contenders = resolve_contenders(["A1"])
    rate = lambda k, n: {"k": k, "n": n, "value": k / n, "ci": [0, 1], "excluded": 0}  # noqa: E731
    splits = {s: {"harnesses": {"A1": {"metrics": {"strict_sa": rate(k, 10), "solve": rate(k, 10),
                                                   "joint": rate(2 * k, 20)}}}} for s, k in (("search", 8), ("heldout", 5))}
    rows = transfer_rows(contenders, splits)
    assert len(rows) == 1 and rows[0]["split"] == "heldout" and rows[0]["search_source"] == "evaluated here"
    cell = rows[0]["metrics"]["strict_sa"]
    assert cell["search"]["k"] == 8 and cell["heldout"]["k"] == 5 and cell["delta"] == pytest.approx(-0.3)
