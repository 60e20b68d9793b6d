"""Labels and counts: what is excluded (an invalid rollout) is told apart from what is unpaired (a
source without both twins) in every printed rate."""

from __future__ import annotations

from harnessx.formatting.cells import rate_cell
from harnessx.scoring.pairs import pairs_right_both_ways
from harnessx.scoring.task_score import TaskScore


def _score(source, feasible, valid=True, ok=True):
    base = dict(task_id=f"{source}-{feasible}", seed=0, feasible=feasible, family=None if feasible else "trap",
                source_id=source, split="search", valid=valid)
    if not valid:
        return TaskScore(**base, exclusion="env_failure")
    return TaskScore(**base, **({"solved": ok, "false_abstention": False} if feasible else {"strict_sa": ok}))


def test_a_suite_without_blocked_twins_is_unpaired_not_excluded():
    rate = pairs_right_both_ways([_score(f"s{i}", True) for i in range(5)])
    assert (rate.k, rate.n, rate.excluded, rate.unpaired) == (0, 0, 0, 5)
    assert rate_cell(rate.to_dict()) == "n/a (n=0), 5 unpaired" and "excl." not in str(rate)


def test_an_invalid_twin_is_excluded_and_a_lone_source_unpaired():
    scores = [_score("a", True), _score("a", False), _score("b", True), _score("b", False, valid=False),
              _score("c", True)]
    rate = pairs_right_both_ways(scores)
    assert (rate.k, rate.n, rate.excluded, rate.unpaired) == (1, 1, 1, 1)
    assert rate_cell(rate.to_dict()).endswith(", 1 excl., 1 unpaired")


def test_an_unknown_harness_names_the_option_it_was_given_to():
    import pytest

    from harnessx.comparison.runs import resolve_contenders
    from harnessx.errors import InputError
    from harnessx.harness.presets import load_preset

    with pytest.raises(InputError) as caught:
        resolve_contenders(["paper-baseline"], include_r0=False)  # what `eval --harness paper-baseline` reads
    assert "--harness" in str(caught.value) and "--preset" not in str(caught.value)
    assert "a harness file or one of" in str(caught.value)
    with pytest.raises(InputError, match="--preset"):
        load_preset("paper-baseline")


def test_an_evaluation_says_how_many_tasks_it_read_used_and_skipped():
    from harnessx.cli.compare_cmd import read_line

    line = read_line("retail", 120, {"heldout": [0] * 30, "search": [0] * 10}, sources=5)
    assert line == ("read 120 tasks of retail; using 40 (30 heldout, 10 search); skipped 80 "
                    "(other splits, beyond --sources 5)")
