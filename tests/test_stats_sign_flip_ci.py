"""The claim's CI inverts its test: hand-computed cases, the case a bootstrap got wrong, and a property
over generated differences that the interval and the verdict never disagree."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harnessx.stats import paired_bootstrap_ci, paired_test, sign_flip_ci

PP = (-1.0, 1.0)


def test_five_wins_out_of_five_fix_the_interval_at_one_and_four_cannot_fix_it():
    # n = 5, all +1: every shift below 1 leaves five equal positive differences, p = 1/32 <= 0.05,
    # rejected; at 1 all are zero, p = 1. With four, p = 1/16 > 0.05 at every shift: nothing is fixed.
    lo, hi = sign_flip_ci([1.0] * 5, 0.90, PP)
    assert lo == pytest.approx(1.0, abs=1e-5) and hi == pytest.approx(1.0, abs=1e-5)
    assert sign_flip_ci([1.0] * 4, 0.90, PP) == (-1.0, 1.0)


def test_four_discordant_wins_in_thirty_are_not_a_gain_either_way():
    """The MCP example's claim before: 4 of 30 tasks +1, the rest tied. The test's p is 1/16 (signs of
    the four), so the claim is not certified; the cluster-free percentile bootstrap's lower bound was
    above zero all the same, the interval and the verdict disagreeing."""
    d = [1.0] * 4 + [0.0] * 26
    p = paired_test(d, [0.0] * 30).p_value
    lo, hi = sign_flip_ci(d, 0.90, PP)
    assert p == pytest.approx(1 / 16, abs=0.005) and lo <= 0.0 < hi  # 10,000 seeded draws of 2^30
    _, boot_lo, _ = paired_bootstrap_ci(d, [0.0] * 30, confidence=0.90, seed=0)
    assert boot_lo > 0.0  # what the claim printed before


@settings(max_examples=60, deadline=None)
@given(d=st.lists(st.sampled_from([-1.0, -0.5, -1 / 3, 0.0, 1 / 3, 0.5, 1.0]), min_size=1, max_size=40),
       confidence=st.sampled_from([0.8, 0.9, 0.95]))
def test_the_interval_excludes_zero_exactly_when_the_one_sided_test_rejects(d, confidence):
    alpha = (1 - confidence) / 2
    lo, hi = sign_flip_ci(d, confidence, PP, n_resamples=2000)
    zeros = [0.0] * len(d)
    assert (lo > 0) == (paired_test(d, zeros, n_resamples=2000).p_value <= alpha)
    assert (hi < 0) == (paired_test(zeros, d, n_resamples=2000).p_value <= alpha)
    mean = sum(d) / len(d)
    assert -1.0 <= lo <= mean + 1e-5 and mean - 1e-5 <= hi <= 1.0
