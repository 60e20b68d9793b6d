"""The claim's test and the CI that inverts it: hand-computed cases, the case a bootstrap got wrong,
and properties over generated differences (the interval and the verdict never disagree; the p is
scipy's permutation test's, exactly where both enumerate)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harnessx.stats import paired_bootstrap_ci, paired_test, sign_flip_ci

PP = (-1.0, 1.0)


def test_five_wins_out_of_five_fix_the_interval_at_one_and_four_cannot_fix_it():
    # n = 5, all +1: 32 sign assignments, p = 1/32; every shift below 1 leaves five equal positive
    # differences (p 1/32 <= 0.05: rejected), at 1 all are zero (p = 1). With four, p = 1/16 > 0.05
    # at every shift: nothing is fixed and the interval is the whole range.
    five = sign_flip_ci([1.0] * 5, 0.90, PP)
    assert five.exact and five.p_value == 1 / 32
    assert five.low == pytest.approx(1.0) and five.high == pytest.approx(1.0)
    four = sign_flip_ci([1.0] * 4, 0.90, PP)
    assert four.p_value == 1 / 16 and (four.low, four.high) == (-1.0, 1.0)


def test_ties_only_give_p_one_and_a_point_interval():
    tied = sign_flip_ci([0.0] * 20, 0.90, PP)
    assert tied.p_value == 1.0 and tied.low == pytest.approx(0.0, abs=1e-9) and tied.high == pytest.approx(0.0, abs=1e-9)


def test_four_discordant_wins_in_thirty_are_not_a_gain_either_way():
    """The MCP example's claim before: 4 of 30 tasks +1, the rest tied. The test's p is about 1/16
    (the signs of the four), so the claim is not certified; the percentile bootstrap's lower bound was
    above zero all the same, the interval and the verdict disagreeing."""
    d = [1.0] * 4 + [0.0] * 26
    result = sign_flip_ci(d, 0.90, PP)
    assert result.p_value == pytest.approx(1 / 16, abs=0.006) and result.low <= 0.0 < result.high
    _, boot_lo, _ = paired_bootstrap_ci(d, [0.0] * 30, confidence=0.90, seed=0)
    assert boot_lo > 0.0  # what the claim printed before


DIFFS = st.lists(st.sampled_from([-1.0, -0.5, -1 / 3, 0.0, 1 / 3, 0.5, 1.0]), min_size=1, max_size=60)


@settings(max_examples=150, deadline=None)
@given(d=DIFFS, confidence=st.sampled_from([0.8, 0.9, 0.95]), seed=st.integers(0, 3))
def test_the_interval_excludes_zero_exactly_when_the_one_sided_test_rejects(d, confidence, seed):
    alpha = (1 - confidence) / 2
    result = sign_flip_ci(d, confidence, PP, n_resamples=2000, seed=seed)
    against = sign_flip_ci([-x for x in d], confidence, PP, n_resamples=2000, seed=seed)  # H₁: mean < 0
    assert (result.low > 0) == (result.p_value <= alpha)
    assert (result.high < 0) == (against.p_value <= alpha)
    mean = sum(d) / len(d)
    assert -1.0 <= result.low <= mean + 1e-9 and mean - 1e-9 <= result.high <= 1.0


@settings(max_examples=60, deadline=None)
@given(d=st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]), min_size=2, max_size=13))
def test_enumerated_p_is_scipys_exact_permutation_p(d):
    """Where 2^n <= the resamples both enumerate every sign assignment: the same p."""
    ours = sign_flip_ci(d, 0.90, PP)
    theirs = paired_test(d, [0.0] * len(d))
    assert ours.exact and ours.p_value == pytest.approx(theirs.p_value, abs=1e-9)
