"""AUROC (Mann–Whitney, ties ½), Brier and ECE₁₀ against hand-computed values."""

from __future__ import annotations

import math

import pytest

from harnessx.stats import auroc, brier, ece10


def test_auroc_counts_pairs_and_half_ties():
    assert auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75  # 3 of 4 (pos, neg) pairs ordered
    assert auroc([0.1, 0.5, 0.5, 0.9], [0, 0, 1, 1]) == 0.875  # one tied pair counts ½: 3.5 / 4
    assert auroc([0.5] * 4, [0, 1, 0, 1]) == 0.5
    assert auroc([0.9, 0.1], [0, 1]) == 0.0
    assert math.isnan(auroc([0.2, 0.3], [1, 1]))


def test_brier():
    assert brier([1.0, 0.0, 0.5], [1, 1, 0]) == pytest.approx((0 + 1 + 0.25) / 3)
    assert brier([0.7], [1]) == pytest.approx(0.09)


def test_ece10_equal_width_bins_last_bin_closed_empty_skipped():
    # bins 0, 1, 9, 9: 0.05/4 + 0.85/4 + 2·|1 − 0.975|/4
    assert ece10([0.05, 0.15, 0.95, 1.0], [0, 1, 1, 1]) == pytest.approx(0.2375)
    assert ece10([1.0, 1.0], [1, 1]) == 0.0  # 1.0 lands in the last bin, not an 11th
    assert ece10([0.3, 0.35], [1, 0]) == pytest.approx(abs(0.5 - 0.325))


def test_mismatched_inputs_are_rejected():
    with pytest.raises(ValueError):
        brier([0.1, 0.2], [1])
    with pytest.raises(ValueError):
        ece10([], [])
