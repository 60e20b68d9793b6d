"""KAPRO's aggregate metrics, exactly as digest §2.4, each with its valid n and a bootstrap CI.

Input: one `Trial` per rollout (task × seed) with its per-trial values (`trial_values`). A trial is
valid when both the knowing probe parsed and the acting run ran; invalid trials are left out of
every denominator and counted by reason. Per group (all tasks, each subspace, each hop):

- Acc_know, Acc_act (Eqs. 5–6): mean Jaccard against the required set T;
- KAS (Eq. 7): the harmonic mean of the two *aggregates* (0 if either is 0);
- ToolOver/ToolUnder per stage (Eq. 9: 1 − Acc = Over + Under); C̄_KA (Eq. 10);
- quadrants Kc/Ac, Kc/Aw, Kw/Ac, Kw/Aw by exact set match (J = 1) and DirGap = p(Kc/Aw) − p(Kw/Ac);
- pass rate (judge) and tool calls per task (reported for Internal, RQ2).

"Avg" over the three subspaces is weighted by each subspace's **valid** count (digest: gpt-4o
(310·90.98 + 368·44.02 + 398·31.98)/1076 = 53.10, not the simple mean 55.66). CIs are seeded
percentile bootstraps (`harnessx.stats.bootstrap_ci`) over tasks (all seeds of a task together);
for Avg the resample is stratified by drawing tasks from the pooled valid set.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from harnessx.kapro.sets import jaccard, kas, overuse, underuse
from harnessx.stats import bootstrap_ci

SUBSPACES = ("external", "hybrid", "internal")
HOPS = ("single-hop", "parallel", "multi-hop")
QUADRANTS = ("kc_ac", "kc_aw", "kw_ac", "kw_aw")
QUADRANT_LABELS = {"kc_ac": "Kc/Ac", "kc_aw": "Kc/Aw", "kw_ac": "Kw/Ac", "kw_aw": "Kw/Aw"}
MEAN_METRICS = ("acc_know", "acc_act", "over_know", "under_know", "over_act", "under_act", "c_ka",
                *QUADRANTS, "pass", "tool_calls")
VALUE_OF = {"acc_know": "j_know", "acc_act": "j_act"}  # metric -> per-trial value key (others: same name)


def trial_values(know: set[str] | None, act: set[str] | None, required: set[str], passed: bool | None,
                 calls: int) -> dict[str, float]:
    """Per-trial values (TaskScore.values): J, over/under per stage, C_KA, the quadrant, pass, calls.

    `know`/`act` None means that stage is invalid; then only what can be computed is returned."""
    out: dict[str, float] = {}
    if know is not None:
        out |= {"j_know": jaccard(know, required), "over_know": overuse(know, required),
                "under_know": underuse(know, required)}
    if act is not None:
        out |= {"j_act": jaccard(act, required), "over_act": overuse(act, required),
                "under_act": underuse(act, required), "tool_calls": float(calls)}
    if know is not None and act is not None:
        kc, ac = out["j_know"] == 1.0, out["j_act"] == 1.0
        out["c_ka"] = jaccard(know, act)
        out |= {q: 0.0 for q in QUADRANTS}
        out[("kc" if kc else "kw") + "_" + ("ac" if ac else "aw")] = 1.0
        jk, ja = out["j_know"], out["j_act"]
        out["kas_task"] = kas(jk, ja)  # per-task harmonic mean: the search value (mean(kas_task) <= KAS)
    if passed is not None:
        out["pass"] = float(passed)
        if "kas_task" in out:
            out["kas_pass"] = (out["kas_task"] + out["pass"]) / 2
    return out


@dataclass(frozen=True)
class Trial:
    task_id: str
    subspace: str
    hop: str
    valid: bool
    values: dict[str, float] = field(default_factory=dict)
    exclusion: str | None = None


def _metric(values: np.ndarray, clusters: list[str], n_resamples: int, seed: int, statistic=None) -> dict:
    n = len(values) if statistic is None else len(clusters)
    if n == 0:
        return {"value": None, "ci": None, "n": 0}
    stat = statistic or (lambda idx: float(values[idx].mean()))
    point, lo, hi = bootstrap_ci(stat, n, clusters=clusters, n_resamples=n_resamples, seed=seed)
    return {"value": point, "ci": [lo, hi], "n": n}


def group_metrics(trials: list[Trial], n_resamples: int = 2000, seed: int = 0) -> dict:
    """Every KAPRO metric of one group of trials, each {value, ci, n}, plus exclusions."""
    valid = [t for t in trials if t.valid]
    clusters = [t.task_id for t in valid]
    col = lambda key: np.array([t.values.get(key, np.nan) for t in valid], dtype=float)  # noqa: E731
    out: dict = {"n_trials": len(trials), "n_valid": len(valid),
                 "excluded": dict(Counter(t.exclusion or "invalid" for t in trials if not t.valid))}
    for name in MEAN_METRICS:
        values = col(VALUE_OF.get(name, name))
        keep = ~np.isnan(values)
        out[name] = _metric(values[keep], [c for c, k in zip(clusters, keep) if k], n_resamples, seed)
    jk, ja = col("j_know"), col("j_act")
    out["kas"] = _metric(jk, clusters, n_resamples, seed,
                         lambda idx: kas(float(jk[idx].mean()), float(ja[idx].mean())))
    q_aw, q_ac = col("kc_aw"), col("kw_ac")
    out["dirgap"] = _metric(q_aw - q_ac, clusters, n_resamples, seed)
    out["kas_task"] = _metric(col("kas_task"), clusters, n_resamples, seed)
    return out


def weighted_avg(per_subspace: dict[str, dict], metric: str) -> dict:
    """Avg over subspaces weighted by each subspace's valid n (the paper's "Avg" columns)."""
    parts = [(b[metric]["value"], b["n_valid"]) for b in per_subspace.values()
             if b["n_valid"] and b[metric]["value"] is not None]
    total = sum(n for _, n in parts)
    return {"value": sum(v * n for v, n in parts) / total if total else None, "n": total,
            "weights": {s: b["n_valid"] for s, b in per_subspace.items()}}


def _avg_ci(trials: list[Trial], metric: str, n_resamples: int, seed: int) -> list[float] | None:
    """Bootstrap CI of the valid-weighted Avg: resample tasks within each subspace, recompute."""
    valid = [t for t in trials if t.valid]
    if not valid:
        return None
    subs = sorted({t.subspace for t in valid})
    arrays = {s: (np.array([t.values["j_know"] for t in valid if t.subspace == s]),
                  np.array([t.values["j_act"] for t in valid if t.subspace == s]),
                  np.array([t.values["kc_aw"] - t.values["kw_ac"] for t in valid if t.subspace == s])) for s in subs}
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_resamples):
        num = den = 0.0
        for s in subs:
            jk, ja, dg = arrays[s]
            idx = rng.integers(0, len(jk), size=len(jk))
            value = kas(float(jk[idx].mean()), float(ja[idx].mean())) if metric == "kas" else float(dg[idx].mean())
            num, den = num + value * len(jk), den + len(jk)
        draws.append(num / den)
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return [float(lo), float(hi)]


def kapro_metrics(trials: list[Trial], n_resamples: int = 2000, seed: int = 0) -> dict:
    """All tasks, per subspace (with Avg weighted by valid n for KAS and DirGap), per hop."""
    per_sub = {s: group_metrics([t for t in trials if t.subspace == s], n_resamples, seed)
               for s in SUBSPACES if any(t.subspace == s for t in trials)}
    per_hop = {h: group_metrics([t for t in trials if t.hop == h], n_resamples, seed)
               for h in HOPS if any(t.hop == h for t in trials)}
    avg = {}
    for metric in ("kas", "dirgap", "acc_know", "acc_act", "pass"):
        avg[metric] = weighted_avg(per_sub, metric)
        if metric in ("kas", "dirgap"):
            avg[metric]["ci"] = _avg_ci(trials, metric, n_resamples, seed)
    return {"all": group_metrics(trials, n_resamples, seed), "per_subspace": per_sub, "avg": avg,
            "per_hop": per_hop, "n_resamples": n_resamples, "bootstrap_seed": seed}
