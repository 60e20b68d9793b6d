"""Verification statistics against the paper's figures (digest §3.1 step 8, Tables 7–8)."""

from __future__ import annotations

import pytest

from harnessx.feasigen.verification import agreement, allocate, cochran, confirmed_share, draw, sample_size

SIZES = {"BFCL": 445, "STB": 300, "API-Bank": 184, "tau-bench": 107}


def test_cochran_with_fpc_and_proportional_allocation_give_283():
    assert cochran() == pytest.approx(384.15, abs=0.01)
    assert sample_size(1036) == 281               # 280.4 rounded up
    alloc = allocate(SIZES)
    assert alloc == {"BFCL": 121, "STB": 82, "API-Bank": 50, "tau-bench": 30}
    assert sum(alloc.values()) == 283


def test_wilson_interval_of_the_confirmed_share():
    share = confirmed_share(268, 283)
    assert round(100 * share["value"], 1) == 94.7
    assert [round(100 * x, 1) for x in share["ci"]] == [91.4, 96.8]


@pytest.mark.parametrize("k,n,lo,hi", [(115, 121, 0.896, 0.977), (77, 82, 0.865, 0.974), (48, 50, 0.865, 0.989),
                                       (28, 30, 0.787, 0.982), (176, 187, 0.898, 0.967), (92, 96, 0.898, 0.984)])
def test_table7_and_8_wilson_intervals(k, n, lo, hi):
    ci = confirmed_share(k, n)["ci"]
    assert [round(x, 3) for x in ci] == [lo, hi]


def test_agreement_hand_computed():
    # 10 items: a = 6 yes, b = 5 yes; both yes 4, both no 3, 3 disagreements
    a = [True] * 4 + [False] * 3 + [True, True, False]
    b = [True] * 4 + [False] * 3 + [False, False, True]
    g = agreement(a, b)
    assert g.raw == pytest.approx(0.7)
    p1, p2 = 0.6, 0.5
    pe = p1 * p2 + (1 - p1) * (1 - p2)
    assert g.kappa == pytest.approx((0.7 - pe) / (1 - pe))
    pi = (p1 + p2) / 2
    assert g.ac1 == pytest.approx((0.7 - 2 * pi * (1 - pi)) / (1 - 2 * pi * (1 - pi)))


def test_a_table_consistent_with_the_papers_agreement_figures():
    # 258 both-yes, 13 both-no, 6 + 6 disagreements of 283 (12 disagreements, as the paper reports)
    a = [True] * 258 + [False] * 13 + [True] * 6 + [False] * 6
    b = [True] * 258 + [False] * 13 + [False] * 6 + [True] * 6
    g = agreement(a, b)
    assert g.disagreements == 12
    assert round(100 * g.raw, 1) == 95.8 and round(g.kappa, 2) == 0.66 and round(g.ac1, 2) == 0.95


def test_draw_is_seeded_and_allocated():
    items = {name: [f"{name}-{i}" for i in range(n)] for name, n in SIZES.items()}
    first, again = draw(items, seed=3), draw(items, seed=3)
    assert first == again
    assert {k: len(v) for k, v in first.items()} == allocate(SIZES)
    assert draw(items, seed=4) != first


def test_kappa_agrees_with_scikit_learn_on_random_labels():
    metrics = pytest.importorskip("sklearn.metrics")
    import random

    rng = random.Random(7)
    for _ in range(5):
        a = [rng.random() < 0.8 for _ in range(60)]
        b = [x if rng.random() < 0.85 else not x for x in a]
        assert agreement(a, b).kappa == pytest.approx(metrics.cohen_kappa_score(a, b))
