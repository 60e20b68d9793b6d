"""Confident Fools metrics for one condition (digest §4.3), each with its valid n and a 95% interval.

NAS and KIS in both variants (judge-free: every correct answer aligned; judged: the alignment
judge on correct answers), their label counts, accuracy and accuracy among answered items, search
and abstention rates, the judge's alignment rate among correct answers, the six-outcome
decomposition of OK-with-search, cued vs uncued NAS and search rate, and the (NAS, KIS) regime.
Denominators are valid responses; CIs of NAS/KIS come from a percentile bootstrap over questions
(3,000 resamples; all seeds of one question drawn together); rates carry Wilson intervals.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from harnessx.cf.labels import KIS_NAMES, NAS_NAMES, Response, kis_label, nas_label
from harnessx.scoring.rate import Rate
from harnessx.stats import bootstrap_ci

RESAMPLES = 3000
VARIANTS = {"judge_free": False, "judged": True}
REGIMES = {(True, True): "ideal", (True, False): "over-searcher", (False, True): "under-searcher",
           (False, False): "confused"}


def score_block(responses: list[Response], labeller, names: dict[int, str], judged: bool,
                n_resamples: int = RESAMPLES, seed: int = 0) -> dict:
    """Mean label with its bootstrap CI over questions, and the label counts."""
    labels = np.array([labeller(r, judged) for r in responses], dtype=float)
    counts = Counter(int(v) for v in labels)
    block = {"n": int(labels.size), "counts": {names[k]: counts.get(k, 0) for k in sorted(names, reverse=True)}}
    if labels.size == 0:
        return block | {"value": None, "ci": None}
    value, lo, hi = bootstrap_ci(lambda idx: float(labels[idx].mean()), labels.size,
                                 clusters=[r.item_id for r in responses], n_resamples=n_resamples, seed=seed)
    return block | {"value": value, "ci": [lo, hi]}


def regime(nas: float | None, kis: float | None) -> str | None:
    """Quadrant of the (NAS, KIS) plane; thresholds at 0 are the paper's convention."""
    if nas is None or kis is None:
        return None
    return REGIMES[(nas > 0, kis > 0)]


def _rate(flags: list[bool]) -> dict:
    return Rate(sum(flags), len(flags)).to_dict()


def _by_kind(responses: list[Response], kind: str) -> list[Response]:
    return [r for r in responses if r.kind == kind]


def six_outcomes(ok: list[Response]) -> dict:
    """{searched, not_searched} x {correct, wrong, abstain} on OK items with a search tool."""
    def outcome(r: Response) -> str:
        return "abstain" if r.abstained else "correct" if r.correct else "wrong"
    out = {}
    for searched in (True, False):
        group = [r for r in ok if r.searched == searched]
        counts = Counter(outcome(r) for r in group)
        out["searched" if searched else "not_searched"] = {
            "n": len(group), **{o: counts.get(o, 0) for o in ("correct", "wrong", "abstain")}}
    return out


def condition_metrics(responses: list[Response], excluded: dict[str, int] | None = None,
                      n_resamples: int = RESAMPLES, seed: int = 0) -> dict:
    """Every metric of one condition over its valid responses (all of one condition)."""
    conditions = {r.condition for r in responses}
    if len(conditions) > 1:
        raise ValueError(f"responses mix conditions {sorted(conditions)}")
    condition = conditions.pop() if conditions else None
    ok, ik = _by_kind(responses, "OK"), _by_kind(responses, "IK")
    out: dict = {"condition": condition, "n_valid": len(responses), "n_ok": len(ok), "n_ik": len(ik),
                 "excluded": dict(sorted((excluded or {}).items())), "n_resamples": n_resamples}
    for variant, judged in VARIANTS.items():
        out.setdefault("nas", {})[variant] = score_block(ok, nas_label, NAS_NAMES, judged, n_resamples, seed)
        out.setdefault("kis", {})[variant] = score_block(ik, kis_label, KIS_NAMES, judged, n_resamples, seed)
        out.setdefault("regime", {})[variant] = regime(out["nas"][variant]["value"], out["kis"][variant]["value"])
    out["accuracy"] = {"all": _rate([r.correct for r in responses]), "OK": _rate([r.correct for r in ok]),
                       "IK": _rate([r.correct for r in ik])}
    out["accuracy_answered"] = {k: _rate([r.correct for r in group if not r.abstained])
                                for k, group in (("all", responses), ("OK", ok), ("IK", ik))}
    out["abstention_rate"] = {k: _rate([r.abstained for r in group])
                              for k, group in (("all", responses), ("OK", ok), ("IK", ik))}
    out["alignment_rate"] = {k: _rate([bool(r.aligned) for r in group if r.correct])
                             for k, group in (("all", responses), ("OK", ok), ("IK", ik))}
    if condition == "search":
        out["search_rate"] = {"OK": _rate([r.searched for r in ok]), "IK": _rate([r.searched for r in ik])}
        out["six_outcomes"] = six_outcomes(ok)
    out["temporal_cues"] = {}
    for name, cued in (("cued", True), ("uncued", False)):
        group = [r for r in ok if r.cued == cued]
        entry = {"n": len(group), "nas": {v: score_block(group, nas_label, NAS_NAMES, j, n_resamples, seed)
                                          for v, j in VARIANTS.items()}}
        if condition == "search":
            entry["search_rate"] = _rate([r.searched for r in group])
        out["temporal_cues"][name] = entry
    out["temporal_cues"]["ik_cued"] = sum(r.cued for r in ik)
    return out
