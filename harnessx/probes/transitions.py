"""Challenge transitions (digest §1.8, Table 6): pre- and post-challenge status per replicate.

In P(x|y), x is the post-challenge status and y the pre-challenge status. Per replicate:
P(+|+) = #(pre+, post+)/#pre+, P(+|−) = #(pre−, post+)/#pre−, P(−|+) = #(pre+, post−)/#pre+, in
percent, and the contrast P(+|−) − P(−|+) in percentage points. A transition whose conditioning
count is zero is undefined in that replicate (None) and leaves its mean. Summaries are mean ±
sample SD over replicates, the contrast's SD taken over per-replicate contrasts. The contrast is
CRA when the same predicate decides both statuses and Δχ when they differ.
"""

from __future__ import annotations

from collections.abc import Sequence

from harnessx.stats import mean_sd

TRANSITIONS = ("p_pos_given_pos", "p_pos_given_neg", "p_neg_given_pos", "contrast")
LABELS = {"p_pos_given_pos": "P(+|+)", "p_pos_given_neg": "P(+|−)", "p_neg_given_pos": "P(−|+)"}


def contrast_name(pre_predicate: str, post_predicate: str) -> str:
    return "CRA" if pre_predicate == post_predicate else "Δχ"


def _pct(k: int, n: int) -> float | None:
    return 100.0 * k / n if n else None


def replicate_transitions(pre: Sequence[bool], post: Sequence[bool]) -> dict:
    """Counts and transition percentages of one replicate (pre[i], post[i] belong to one task)."""
    if len(pre) != len(post):
        raise ValueError(f"{len(pre)} pre-challenge statuses for {len(post)} post-challenge ones")
    pp = sum(a and b for a, b in zip(pre, post))
    pn = sum(a and not b for a, b in zip(pre, post))
    np_ = sum(b and not a for a, b in zip(pre, post))
    n_pos, n_neg = pp + pn, len(pre) - pp - pn
    up, down = _pct(np_, n_neg), _pct(pn, n_pos)
    return {"n": len(pre), "n_pre_pos": n_pos, "n_pre_neg": n_neg, "pos_to_pos": pp, "pos_to_neg": pn,
            "neg_to_pos": np_, "p_pos_given_pos": _pct(pp, n_pos), "p_pos_given_neg": up,
            "p_neg_given_pos": down, "contrast": None if up is None or down is None else up - down}


CONDITIONING = {"p_pos_given_pos": "n_pre_pos", "p_pos_given_neg": "n_pre_neg", "p_neg_given_pos": "n_pre_pos",
                "contrast": "n"}


def summarize(replicates: list[dict]) -> dict:
    """Mean ± sample SD over replicates of each transition and of the contrast, with the range of the
    per-replicate n behind it (`n_per_rep`: the conditioning count, or the tasks for the contrast)."""
    out = {}
    for name in TRANSITIONS:
        defined = [r for r in replicates if r[name] is not None]
        ns = [r[CONDITIONING[name]] for r in defined]
        out[name] = {**mean_sd([r[name] for r in defined]).to_dict(), "n_per_rep": [min(ns), max(ns)] if ns else None}
    return out


POOLED = {"p_pos_given_pos": ("pos_to_pos", "n_pre_pos"), "p_pos_given_neg": ("neg_to_pos", "n_pre_neg"),
          "p_neg_given_pos": ("pos_to_neg", "n_pre_pos")}


def pooled(replicates: list[dict]) -> dict:
    """Each transition as one k/n over all replicates (with its Wilson 95% CI): the n behind the mean."""
    from harnessx.scoring.rate import Rate

    return {name: Rate(sum(r[k] for r in replicates), sum(r[n] for r in replicates), 0).to_dict()
            for name, (k, n) in POOLED.items()}
