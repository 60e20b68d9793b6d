"""Across worlds: #48's targets on a set of drawn worlds, each world one observation.

The bench's per-group tables (efficiency_report.py) average over search seeds inside one world.
Here every world contributes its mean over seeds, and the CIs are across worlds (a bootstrap over
the worlds), so a design is judged on how it does in worlds it may not have been tuned on:

- mean held-out ground-truth gain of `candidate` >= GEPA's (on the default's rollouts: the bench gives GEPA those), with the
  paired difference's CI across worlds;
- >= 0.9 of the paper protocol's mean gain at <= 0.4 of its mean rollouts;
- `candidate` behind GEPA by more than 0.05 in <= 20% of the worlds;
- harmful moves <= 5% of rounds.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
from efficiency_targets import mean_ci

from harnessx.stats.bootstrap import bootstrap_ci

BEHIND = 0.05


def per_world(summaries: list[dict], env: str, rho: float) -> dict[str, dict[str, dict[str, float]]]:
    """world -> strategy -> {gain_heldout, rollouts, harmful, rounds}: each world's means over its seeds."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for s in summaries:
        if s["env"] == env and s["rho"] == rho:
            out[s["profile"]] = {name: {"gain_heldout": v["mean"]["gain_heldout"], "rollouts": v["mean"]["rollouts"],
                                        "harmful": v["harmful"], "rounds": v["rounds"] or 0}
                                 for name, v in s["strategies"].items()}
    return out


def _ci_text(values: list[float]) -> str:
    mean, lo, hi = mean_ci(values)
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]" if math.isfinite(lo) else f"{mean:+.3f} [n/a]"


def _ratio_ci(cand: list[float], paper: list[float]) -> str:
    """ [lo, hi]: the 95% bootstrap CI across worlds of mean(cand) / mean(paper), resampling worlds
    (paired); empty when it is undefined (fewer than 2 worlds, or resamples with no paper gain)."""
    a, b = np.asarray(cand, dtype=float), np.asarray(paper, dtype=float)
    if a.size < 2:
        return ""
    try:
        _, lo, hi = bootstrap_ci(lambda idx: float(a[idx].mean() / b[idx].mean()) if b[idx].mean() else float("nan"),
                                 a.size, n_resamples=2000)
    except ValueError:  # undefined on every resample: the paper gained nothing anywhere
        return ""
    return f" [{lo:.2f}, {hi:.2f}]" if math.isfinite(lo) and math.isfinite(hi) else ""


def world_report(summaries: list[dict], candidate: str = "default") -> list[str]:
    """Lines of the across-worlds report, one block per (suite, noise) with at least two worlds."""
    lines: list[str] = []
    for env, rho in sorted({(s["env"], s["rho"]) for s in summaries}):
        worlds = per_world(summaries, env, rho)
        if len(worlds) < 2 or any(candidate not in w for w in worlds.values()):
            continue
        n = len(worlds)
        cand = [w[candidate]["gain_heldout"] for w in worlds.values()]
        lines.append(f"== across {n} worlds on {env}, rho {rho:g} (each world = its mean over seeds; CIs across worlds)")
        lines.append(f"  {candidate}: held-out gain {_ci_text(cand)}, rollouts "
                     f"{statistics.mean(w[candidate]['rollouts'] for w in worlds.values()):.0f}")
        if all("gepa" in w for w in worlds.values()):
            gepa = [w["gepa"]["gain_heldout"] for w in worlds.values()]
            diff = [c - g for c, g in zip(cand, gepa)]
            behind = sum(d < -BEHIND for d in diff)
            lines.append(f"  GEPA (on default's rollouts): {_ci_text(gepa)}; {candidate} - GEPA {_ci_text(diff)}: "
                         f"{'met' if statistics.mean(diff) >= 0 else 'missed'} (target: >= 0)")
            lines.append(f"  {candidate} behind GEPA by more than {BEHIND}: {behind}/{n} worlds = {behind / n:.2f}: "
                         f"{'met' if behind / n <= 0.2 else 'missed'} (target: <= 0.20)")
        if all("paper" in w for w in worlds.values()):
            paper = [w["paper"]["gain_heldout"] for w in worlds.values()]
            ratio = statistics.mean(cand) / statistics.mean(paper) if statistics.mean(paper) else float("nan")
            spent = (statistics.mean(w[candidate]["rollouts"] for w in worlds.values())
                     / statistics.mean(w["paper"]["rollouts"] for w in worlds.values()))
            ok = ratio >= 0.9 and spent <= 0.4
            lines.append(f"  paper: {_ci_text(paper)}; {candidate}/paper gain {ratio:.2f}{_ratio_ci(cand, paper)} at "
                         f"{spent:.2f} of its rollouts: {'met' if ok else 'missed'} (target: >= 0.90 at <= 0.40)")
        harmful = sum(w[candidate]["harmful"] for w in worlds.values())
        rounds = sum(w[candidate]["rounds"] for w in worlds.values())
        if rounds:
            lines.append(f"  harmful moves: {harmful}/{rounds:.0f} rounds = {harmful / rounds:.3f}: "
                         f"{'met' if harmful / rounds <= 0.05 else 'missed'} (target: <= 0.05)")
    return lines
