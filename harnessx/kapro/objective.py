"""The search objective `kas` is KAPRO's Avg KAS itself, computed on each candidate's evaluation.

Avg KAS = Σ_s (n_s / N) · H(ā_s, b̄_s): per subspace s, H is the harmonic mean (Eq. 7) of the
aggregate Acc_know ā_s and Acc_act b̄_s over its n_s valid trials, and the subspaces are weighted by
their valid counts (the paper's "Avg"). It is not a mean of per-trial values, while the acceptance
rules compare candidates task by task. So each valid trial i of subspace s gets its share

    kas_avg_i = H_s + ∂H/∂a · (J_know,i − ā_s) + ∂H/∂b · (J_act,i − b̄_s),
    ∂H/∂a = 2 b̄_s² / (ā_s + b̄_s)²,  ∂H/∂b = 2 ā_s² / (ā_s + b̄_s)²   (both 0 when ā_s + b̄_s = 0),

the first-order (delta-method) decomposition of H around the evaluation's own aggregates. The terms
in brackets sum to 0 within a subspace, so the mean of kas_avg_i over the evaluation's valid trials
is Avg KAS exactly; the per-task difference of two candidates' shares averages to the difference
of their Avg KAS, and the paired test on it is the delta-method test of that difference. A rule
that tests on part of an evaluation (`default`'s screen and rungs) uses the shares of the tasks it tests.
`kas_pass` is (Avg KAS + pass rate) / 2 the same way: kas_avg_pass_i = (kas_avg_i + pass_i) / 2.
"""

from __future__ import annotations

from collections import defaultdict

from harnessx.kapro.sets import kas
from harnessx.scoring.task_score import TaskScore


def kas_gradient(a: float, b: float) -> tuple[float, float]:
    """(∂H/∂a, ∂H/∂b) of H(a, b) = 2ab / (a + b); (0, 0) at a = b = 0."""
    total = a + b
    if total <= 0:
        return 0.0, 0.0
    return 2 * b * b / total ** 2, 2 * a * a / total ** 2


def kas_shares(scores: list[TaskScore], subspace_of: dict[str, str]) -> dict[int, float]:
    """Position in `scores` -> that trial's share of Avg KAS, for every valid KAPRO trial with both J."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(scores):
        if s.valid and s.task_id in subspace_of and "j_know" in s.values and "j_act" in s.values:
            groups[subspace_of[s.task_id]].append(i)
    out: dict[int, float] = {}
    for members in groups.values():
        a = sum(scores[i].values["j_know"] for i in members) / len(members)
        b = sum(scores[i].values["j_act"] for i in members) / len(members)
        h, (wa, wb) = kas(a, b), kas_gradient(a, b)
        for i in members:
            out[i] = h + wa * (scores[i].values["j_know"] - a) + wb * (scores[i].values["j_act"] - b)
    return out


def with_kas_shares(scores: list[TaskScore], subspace_of: dict[str, str]) -> list[TaskScore]:
    """`scores` with `kas_avg` (and `kas_avg_pass` where pass is known) on every KAPRO trial it applies to."""
    shares = kas_shares(scores, subspace_of)
    out = list(scores)
    for i, share in shares.items():
        values = {**scores[i].values, "kas_avg": share}
        if "pass" in values:
            values["kas_avg_pass"] = (share + values["pass"]) / 2
        out[i] = scores[i].model_copy(update={"values": values})
    return out
