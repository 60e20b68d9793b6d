"""FeasiGen's metrics exactly as the digest states them (§3.3), each with its valid n and a 95% CI.

Notation: y ∈ {infeasible, feasible} is the ground truth, ŷ the decision (STOP → infeasible),
s ∈ {0, 1} task success. One `Outcome` is one valid or excluded trial.

- FCR = P(ŷ = feasible | y = infeasible) on Task_infeasible (continues / infeasible trials).
- "completed while infeasible": infeasible trials whose original goal was reached anyway; the
  paper's Table 6 ("false positives") equals round(FCR·N), i.e. counts continues, so both are
  reported separately.
- SR = successes / originals, on Task_original; a STOP on an original is a failure.
- TC_early-stop / TC_task-failure: mean tokens (input + output, up to and including the
  termination decision) over infeasible trials that stopped / continued; Ratio = failure / early.
- FASS = (correct STOPs on infeasibles + successes on originals) / (originals + infeasibles),
  pooled per dataset; "Avg" is the unweighted mean over datasets.
- Multi-agent FASS: the planner → executor system's detection on Task_infeasible pooled with the
  executor's single-agent SR on Task_original (the system is not run on originals).
- Pareto frontier of (SR, FCR): non-dominated systems (no other is at least as good on both and
  better on one), and its lower convex hull, which is the frontier the paper draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from harnessx.scoring.rate import Rate
from harnessx.stats import bootstrap_ci


@dataclass(frozen=True)
class Outcome:
    """One trial: `valid` False for an excluded rollout (environment or model failure)."""

    task_id: str
    dataset: str
    feasible: bool
    stopped: bool = False
    success: bool = False      # original: solved; infeasible: original goal reached anyway
    tokens: int = 0            # up to and including the termination decision
    valid: bool = True
    source_id: str = ""
    stopped_by: str = ""       # agent / planner / executor: who made the STOP

    def to_dict(self) -> dict:
        return asdict(self)


def _rate(flags: list[bool | None]) -> Rate:
    return Rate.of(flags)


def _flags(outcomes: Sequence[Outcome], feasible: bool, attr) -> list[bool | None]:
    return [attr(o) if o.valid else None for o in outcomes if o.feasible == feasible]


def fcr(outcomes: Sequence[Outcome]) -> Rate:
    return _rate(_flags(outcomes, False, lambda o: not o.stopped))


def stop_rate(outcomes: Sequence[Outcome]) -> Rate:
    """Infeasibility detection: STOPs on Task_infeasible (1 − FCR)."""
    return _rate(_flags(outcomes, False, lambda o: o.stopped))


def completed_infeasible(outcomes: Sequence[Outcome]) -> Rate:
    return _rate(_flags(outcomes, False, lambda o: (not o.stopped) and o.success))


def sr(outcomes: Sequence[Outcome]) -> Rate:
    return _rate(_flags(outcomes, True, lambda o: o.success and not o.stopped))


def false_stop(outcomes: Sequence[Outcome]) -> Rate:
    """STOPs on Task_original (each one a failure under SR)."""
    return _rate(_flags(outcomes, True, lambda o: o.stopped))


@dataclass(frozen=True)
class TokenMean:
    mean: float | None
    n: int
    ci: tuple[float, float] | None

    def to_dict(self) -> dict:
        return {"mean": self.mean, "n": self.n, "ci": list(self.ci) if self.ci else None}


def _mean_ci(values: list[float], seed: int = 0, n_resamples: int = 2000) -> TokenMean:
    if not values:
        return TokenMean(None, 0, None)
    arr = np.asarray(values, dtype=float)
    if arr.size == 1:
        return TokenMean(float(arr[0]), 1, None)
    point, lo, hi = bootstrap_ci(lambda idx: float(arr[idx].mean()), arr.size, n_resamples=n_resamples, seed=seed)
    return TokenMean(point, int(arr.size), (lo, hi))


def token_costs(outcomes: Sequence[Outcome], seed: int = 0, n_resamples: int = 2000) -> dict:
    """TC_early-stop, TC_task-failure (bootstrap 95% CIs of the means) and their ratio (bootstrap
    CI resampling both groups independently)."""
    stop = [o.tokens for o in outcomes if o.valid and not o.feasible and o.stopped]
    fail = [o.tokens for o in outcomes if o.valid and not o.feasible and not o.stopped]
    early, failure = _mean_ci(stop, seed, n_resamples), _mean_ci(fail, seed + 1, n_resamples)
    ratio, ci = None, None
    if early.mean and failure.mean is not None:
        ratio = failure.mean / early.mean
        if len(stop) > 1 and len(fail) > 1:
            rng = np.random.default_rng(seed)
            a, b = np.asarray(stop, float), np.asarray(fail, float)
            draws = [b[rng.integers(0, b.size, b.size)].mean() / max(a[rng.integers(0, a.size, a.size)].mean(), 1e-9)
                     for _ in range(n_resamples)]
            ci = (float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5)))
    return {"early_stop": early.to_dict(), "task_failure": failure.to_dict(), "ratio": ratio,
            "ratio_ci": list(ci) if ci else None}


def fass(outcomes: Sequence[Outcome]) -> Rate:
    """Pooled over originals + infeasibles (use it per dataset)."""
    return _rate([(o.stopped if not o.feasible else (o.success and not o.stopped)) if o.valid else None
                  for o in outcomes])


def fass_from_rates(sr_value: float, n_original: int, detection: float, n_infeasible: int) -> float:
    """FASS from published rates: (SR·|orig| + (1 − FCR)·|infeasible|) / (|orig| + |infeasible|)."""
    return (sr_value * n_original + detection * n_infeasible) / (n_original + n_infeasible)


def multi_agent_fass(system_infeasible: Sequence[Outcome], executor_original: Sequence[Outcome]) -> Rate:
    """The planner → executor system's STOPs on Task_infeasible pooled with the executor's own
    single-agent successes on Task_original."""
    return fass([o for o in system_infeasible if not o.feasible] + [o for o in executor_original if o.feasible])


def macro(rates: dict[str, Rate]) -> dict:
    """Unweighted mean over datasets with a normal-approximation 95% CI (independent datasets, each
    standard error from its Wilson interval); with one dataset, its Wilson interval."""
    parts = [r for r in rates.values() if r.n]
    if not parts:
        return {"value": None, "datasets": 0, "ci": None}
    n = sum(r.n for r in parts)
    if len(parts) == 1:  # one dataset: its own k/n and Wilson interval
        return {"value": parts[0].value, "datasets": 1, "ci": list(parts[0].ci), "n": n}
    mean = sum(r.value for r in parts) / len(parts)
    # each dataset's standard error read off its Wilson interval (never zero at 0% or 100%)
    var = sum(((r.ci[1] - r.ci[0]) / (2 * 1.96)) ** 2 for r in parts) / len(parts) ** 2
    half = 1.96 * math.sqrt(var)
    return {"value": mean, "datasets": len(parts), "ci": [max(0.0, mean - half), min(1.0, mean + half)], "n": n}


def by_dataset(outcomes: Sequence[Outcome]) -> dict[str, list[Outcome]]:
    out: dict[str, list[Outcome]] = {}
    for o in outcomes:
        out.setdefault(o.dataset, []).append(o)
    return dict(sorted(out.items()))


def pareto_frontier(points: dict[str, tuple[float, float]]) -> list[str]:
    """Non-dominated systems (name -> (SR, FCR)): no other has SR at least as high and FCR at least
    as low, and one of them strictly (the paper's "both higher SR and lower FCR" where nothing ties)."""
    def dominated(s: float, f: float, s2: float, f2: float) -> bool:
        return s2 >= s and f2 <= f and (s2 > s or f2 < f)

    return [a for a, (s, f) in points.items()
            if not any(dominated(s, f, s2, f2) for b, (s2, f2) in points.items() if b != a)]


def convex_frontier(points: dict[str, tuple[float, float]]) -> list[str]:
    """The non-dominated systems on the lower convex hull of (SR, FCR) (the frontier as drawn)."""
    front = sorted(pareto_frontier(points), key=lambda n: (points[n][0], points[n][1]))
    hull: list[str] = []
    for name in front:
        while len(hull) >= 2:
            (x1, y1), (x2, y2), (x3, y3) = points[hull[-2]], points[hull[-1]], points[name]
            if (x2 - x1) * (y3 - y1) - (y2 - y1) * (x3 - x1) <= 0:  # middle point lies above the chord
                hull.pop()
            else:
                break
        hull.append(name)
    return hull


def summary(outcomes: Sequence[Outcome], seed: int = 0) -> dict:
    """Every metric of one system, per dataset and macro-averaged, as JSON-able dicts."""
    per = {}
    for dataset, group in by_dataset(outcomes).items():
        per[dataset] = {"n_original": sum(o.feasible for o in group), "n_infeasible": sum(not o.feasible for o in group),
                        "sr": sr(group).to_dict(), "fcr": fcr(group).to_dict(), "stop": stop_rate(group).to_dict(),
                        "false_stop": false_stop(group).to_dict(),
                        "completed_infeasible": completed_infeasible(group).to_dict(),
                        "false_continue_count": fcr(group).k, "fass": fass(group).to_dict(),
                        "tokens": token_costs(group, seed)}
    groups = by_dataset(outcomes)
    return {"datasets": per,
            "avg": {m: macro({d: fn(g) for d, g in groups.items()})
                    for m, fn in (("sr", sr), ("fcr", fcr), ("fass", fass))}}
