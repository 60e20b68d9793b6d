"""Seeded percentile bootstrap (item and cluster), paired tests and Holm, on hand-computable cases."""

from __future__ import annotations

import numpy as np
import pytest

from harnessx.stats import auroc, bootstrap_ci, holm, paired_bootstrap_ci, paired_test
from harnessx.stats.bootstrap import cluster_groups, resample_indices


def test_cluster_resampling_keeps_pairs_together():
    rng, groups = np.random.default_rng(0), cluster_groups(4, ["a", "a", "b", "b"])
    for _ in range(20):
        idx = resample_indices(groups, rng)
        assert len(idx) == 4 and {tuple(idx[:2]), tuple(idx[2:])} <= {(0, 1), (2, 3)}
    assert [g.tolist() for g in cluster_groups(3)] == [[0], [1], [2]]
    with pytest.raises(ValueError, match="2 labels for 3 items"):
        cluster_groups(3, ["a", "b"])


def test_cluster_bootstrap_of_a_mean():
    values = np.array([0.0, 0.0, 1.0, 1.0])
    # cluster means are 0 or 1; a resample of 2 clusters has mean 0, ½ or 1 with probability ¼, ½, ¼
    point, lo, hi = bootstrap_ci(lambda i: values[i].mean(), 4, clusters=["a", "a", "b", "b"], n_resamples=2000)
    assert (point, lo, hi) == (0.5, 0.0, 1.0)


def test_bootstrap_is_seeded_and_drops_undefined_resamples():
    y, p = np.array([0, 1, 0, 1, 1, 0]), np.array([0.2, 0.9, 0.4, 0.6, 0.7, 0.1])
    stat = lambda i: auroc(p[i], y[i])  # noqa: E731  (NaN when a resample holds one class)
    first = bootstrap_ci(stat, 6, n_resamples=500, seed=7)
    assert first == bootstrap_ci(stat, 6, n_resamples=500, seed=7)
    assert first[0] == 1.0 and first[1] <= first[2] == 1.0


def test_paired_bootstrap_difference_is_first_minus_second():
    assert paired_bootstrap_ci([1, 1, 1], [0, 0, 0], n_resamples=100) == (1.0, 1.0, 1.0)
    # differences 1, 0, 0, 1: each source pair averages ½, so only item-level resampling varies
    first, second = [1, 0, 1, 1], [0, 0, 1, 0]
    assert paired_bootstrap_ci(first, second, clusters=[0, 0, 1, 1], n_resamples=500) == (0.5, 0.5, 0.5)
    assert paired_bootstrap_ci(first, second, n_resamples=2000) == (0.5, 0.0, 1.0)


def test_sign_flip_test_exact():
    # diffs −1, 2, 3, 4, 5: sum 13; a sign pattern reaches ≥ 13 only when the flipped set sums to ≤ 1 → 2/32
    res = paired_test([0, 2, 3, 4, 5], [1, 0, 0, 0, 0])
    assert (res.mean_diff, res.p_value, res.n, res.method) == (2.6, pytest.approx(2 / 32), 5, "sign_flip")
    assert paired_test([1, 1, 1, 1, 0], [0] * 5).p_value == pytest.approx(2 / 32)


def test_wilcoxon_exact():
    assert paired_test([1, 2, 3, 4, 5], [0] * 5, method="wilcoxon").p_value == pytest.approx(1 / 32)
    assert paired_test([0, 2, 3, 4, 5], [1, 0, 0, 0, 0], method="wilcoxon").p_value == pytest.approx(2 / 32)


def test_no_difference_is_no_evidence():
    assert paired_test([1, 0, 1], [1, 0, 1]).p_value == 1.0
    with pytest.raises(ValueError):
        paired_test([1], [0], method="t")


def test_sign_flip_of_one_pair_is_exact():
    # one pair: the observed difference and its flip; a gain is as large as the observed in 1 of 2
    assert paired_test([1.0], [0.0]).p_value == 0.5
    assert paired_test([0.0], [1.0]).p_value == 1.0


def test_holm_step_down():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.6]) == [1.0, 1.0]
    assert holm([0.001]) == [0.001]
