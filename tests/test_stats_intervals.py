"""Wilson intervals and mean ± sample SD against hand-computed values."""

from __future__ import annotations

import math

import pytest

from harnessx.stats import mean_sd, wilson


def test_wilson_hand_computed():
    # p = 26/64, z = 1.959964: centre 0.411558, half-width 0.116989
    assert wilson(26, 64) == pytest.approx((0.294569, 0.528548), abs=1e-6)
    # k = 0: upper = z²/n / (1 + z²/n) = 0.384146 / 1.384146
    assert wilson(0, 10) == pytest.approx((0.0, 0.277533), abs=1e-6)
    assert wilson(10, 10) == pytest.approx((0.722467, 1.0), abs=1e-6)
    lo90, hi90 = wilson(26, 64, confidence=0.90)
    assert 0.294569 < lo90 < hi90 < 0.528548


@pytest.mark.parametrize("k, n", [(1, 0), (-1, 5), (6, 5)])
def test_wilson_rejects_impossible_counts(k, n):
    with pytest.raises(ValueError):
        wilson(k, n)


def test_mean_sd_uses_sample_sd():
    m = mean_sd([1, 2, 3, 4])
    assert (m.mean, m.sd, m.n) == (2.5, pytest.approx(math.sqrt(5 / 3)), 4)
    assert str(mean_sd([86.9, 80.0, 93.8])) == "86.9 ± 6.9 (n=3)"
    one, none = mean_sd([3]), mean_sd([])
    assert (one.mean, math.isnan(one.sd), str(one)) == (3.0, True, "3.0 (n=1)")
    assert none.n == 0 and none.to_dict() == {"mean": None, "sd": None, "n": 0}
