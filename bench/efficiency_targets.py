"""The default search's targets, judged from bench/search_efficiency.py's results.json (and, for the null
test, bench/search_null.py's): one line per target and group ending in `met` or `missed`, then
`targets: N met, M missed`. Every verdict is computed on the means over seeds, with the CIs beside it.

1. held-out ground-truth gain >= GEPA's, at no more rollouts than GEPA used;
2. held-out ground-truth gain >= 0.9 x the paper protocol's, at <= 0.4 x its rollouts;
3. a held-out gain > 0 (the issue asks it of terminal; judged in every group);
4. a truly harmful move in <= 5% of rounds;
5. (with the null bench's results) the final claim certified in <= 5% of null searches.
"""

from __future__ import annotations

import math
import statistics

import numpy as np

from harnessx.stats.bootstrap import bootstrap_ci


def mean_ci(x: list[float]) -> tuple[float, float, float]:
    """The mean and its 95% percentile bootstrap CI across seeds (nan with one seed)."""
    if len(x) < 2:
        return statistics.mean(x), float("nan"), float("nan")
    values = np.asarray(x, dtype=float)
    return bootstrap_ci(lambda idx: float(values[idx].mean()), values.size, n_resamples=2000)


def _ci(values: list[float]) -> str:
    _, lo, hi = mean_ci(values)
    return f"[{lo:+.3f}, {hi:+.3f}]" if math.isfinite(lo) else "[n/a: one seed]"


def _verdict(ok: bool) -> str:
    return "met" if ok else "missed"


def group_lines(summary: dict, candidate: str) -> list[tuple[str, bool]]:
    """(line, met) per target of one (suite, world, noise) group; a target whose reference strategy is
    missing from the group is not a line."""
    noise = "CRN" if summary["rho"] == 1 else f"rho {summary['rho']:g}"
    head = f"{summary['env']} {summary['profile']} {noise}, {candidate} (n = {len(summary['seeds'])} seeds)"
    s = summary["strategies"]
    if candidate not in s:
        return []
    mine = s[candidate]
    gain, spent = mine["mean"]["gain_heldout"], mine["mean"]["rollouts"]
    held = f"{gain:+.3f} {_ci(mine['per_seed']['gain_heldout'])}"
    out = []
    if "gepa" in s:
        g = s["gepa"]
        ok = gain >= g["mean"]["gain_heldout"] and spent <= g["mean"]["rollouts"]
        out.append((f"{head}: 1 held-out gain >= GEPA's at <= its rollouts: {held} vs {g['mean']['gain_heldout']:+.3f} "
                    f"{_ci(g['per_seed']['gain_heldout'])} at {spent:.0f} vs {g['mean']['rollouts']:.0f} rollouts: "
                    f"{_verdict(ok)}", ok))
    if "paper" in s:
        p = s["paper"]
        need = 0.9 * p["mean"]["gain_heldout"]
        ok = gain >= need and spent <= 0.4 * p["mean"]["rollouts"]
        out.append((f"{head}: 2 held-out gain >= 0.9 x the paper's at <= 0.4 x its rollouts: {held} vs 0.9 x "
                    f"{p['mean']['gain_heldout']:+.3f} = {need:+.3f}, at {spent:.0f} vs 0.4 x {p['mean']['rollouts']:.0f} "
                    f"= {0.4 * p['mean']['rollouts']:.0f} rollouts: {_verdict(ok)}", ok))
    out.append((f"{head}: 3 held-out gain > 0: {held}: {_verdict(gain > 0)}", gain > 0))
    if mine.get("rounds"):
        ok = mine["harmful"] <= 0.05 * mine["rounds"]
        out.append((f"{head}: 4 a harmful move in <= 5% of rounds: {mine['harmful']}/{mine['rounds']} rounds = "
                    f"{mine['harmful'] / mine['rounds']:.3f}: {_verdict(ok)}", ok))
    return out


def null_line(null: dict, candidate: str) -> tuple[str, bool] | None:
    """Target 5 from bench/search_null.py's results (None when it has no such rule)."""
    r = null.get("rules", {}).get(candidate)
    if r is None:
        return None
    ok = r["certified_rate"] <= 0.05
    return (f"null test, {candidate} (n = {null['searches']} searches): 5 claim certified in <= 5% of searches: "
            f"{r['certified']}/{null['searches']} = {r['certified_rate']:.3f} (Wilson 95% {r['certified_ci'][0]:.3f}-"
            f"{r['certified_ci'][1]:.3f}): {_verdict(ok)}", ok)


def target_report(summaries: list[dict], candidate: str, null: dict | None = None) -> list[str]:
    judged = [line for summary in summaries for line in group_lines(summary, candidate)]
    if null is not None and (line := null_line(null, candidate)) is not None:
        judged.append(line)
    met = sum(ok for _, ok in judged)
    return [text for text, _ in judged] + [f"targets: {met} met, {len(judged) - met} missed"]
