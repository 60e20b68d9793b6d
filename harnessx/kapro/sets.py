"""KAPRO's per-task set measures (digest §2.4): Jaccard J with J(∅, ∅) = 1, and the Appendix D
decomposition of the Jaccard distance into overuse and underuse (all 0 when X = T = ∅)."""

from __future__ import annotations

from collections.abc import Iterable


def jaccard(x: Iterable[str], t: Iterable[str]) -> float:
    """Eq. 4: |X ∩ T| / |X ∪ T|, and 1 when both sets are empty."""
    x, t = set(x), set(t)
    union = x | t
    return 1.0 if not union else len(x & t) / len(union)


def overuse(x: Iterable[str], t: Iterable[str]) -> float:
    """O(X, T) = |X \\ T| / |X ∪ T|: tools used (or marked) that the task does not need."""
    x, t = set(x), set(t)
    union = x | t
    return 0.0 if not union else len(x - t) / len(union)


def underuse(x: Iterable[str], t: Iterable[str]) -> float:
    """U(X, T) = |T \\ X| / |X ∪ T|: needed tools left out."""
    x, t = set(x), set(t)
    union = x | t
    return 0.0 if not union else len(t - x) / len(union)


def kas(acc_know: float, acc_act: float) -> float:
    """Eq. 7: the harmonic mean of the two *aggregate* accuracies, 0 when either is 0."""
    if acc_know <= 0 or acc_act <= 0:
        return 0.0
    return 2 * acc_know * acc_act / (acc_know + acc_act)
