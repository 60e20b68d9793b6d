"""PNG figures with matplotlib (Agg backend, no display): each function draws one figure from the
run, comparison or probe data and writes it to `path`. A footer names the model (and says when it
is simulated); labels carry their n."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from harnessx.formatting.figures import save_figure as _save  # noqa: E402
from harnessx.probes.transitions import LABELS as TRANSITION_LABELS  # noqa: E402




def ledger_value(row: dict) -> float | None:
    """The objective value a ledger row records (a number, or a rate dict with `value`)."""
    raw = row.get("objective_value", row.get("objective", row.get("value")))
    raw = raw.get("value") if isinstance(raw, dict) else raw
    return float(raw) if isinstance(raw, (int, float)) else None


def search_curve(ledger: list[dict], path: Path, model_note: str, objective: str = "objective") -> Path:
    fig, ax = plt.subplots(figsize=(7, 4))
    points = [(int(r.get("round", 0)), ledger_value(r), bool(r.get("accepted")), bool((r.get("judged") or {}).get("screened")))
              for r in ledger]
    points = [p for p in points if p[1] is not None]
    whole, screened = [p for p in points if not p[3]], [p for p in points if p[3]]
    ax.scatter([p[0] for p in whole], [p[1] for p in whole], s=18, color="tab:blue", alpha=0.6,
               label=f"proposal on the whole split (n={len(whole)})")
    if screened:  # a k/n over a screened subset: other tasks, drawn apart and never joined to the line
        ax.scatter([p[0] for p in screened], [p[1] for p in screened], s=22, facecolors="none",
                   edgecolors="tab:gray", label=f"screened on a subset, not comparable (n={len(screened)})")
    incumbent, line = None, []
    for rnd in sorted({p[0] for p in points}):
        accepted = [p for p in points if p[0] == rnd and (p[2] or rnd == 0)]
        if accepted:  # an incumbent accepted on a subset has no whole-split score: the line breaks there
            incumbent = None if accepted[-1][3] else accepted[-1][1]
        line.append((rnd, float("nan") if incumbent is None else incumbent))
    ax.step([x for x, _ in line], [y for _, y in line], where="post", color="black", label="incumbent (whole split)")
    stars = [p for p in points if p[2] and p[0] > 0 and not p[3]]
    ax.scatter([p[0] for p in stars], [p[1] for p in stars], marker="*", s=160, color="tab:orange",
               zorder=3, label=f"accepted (rounds {', '.join(str(p[0]) for p in stars) or 'none'})")
    if sub := [p for p in points if p[2] and p[0] > 0 and p[3]]:
        ax.scatter([p[0] for p in sub], [p[1] for p in sub], marker="*", s=160, facecolors="none",
                   edgecolors="tab:orange", zorder=3,
                   label=f"accepted, screened on a subset (rounds {', '.join(str(p[0]) for p in sub)})")
    ax.set(xlabel="round (0 = R0)", ylabel=f"{objective} on the search split", title="Search curve by round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8)
    return _save(fig, path, model_note)


def sa_vs_solve(candidates: list[dict], path: Path, model_note: str) -> Path:
    """`candidates`: {label, strict_sa, solve} rate dicts; highlighted ones carry `highlight`."""
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for c in candidates:
        sa, solve = c["strict_sa"], c["solve"]
        if sa.get("value") is None or solve.get("value") is None:
            continue
        big, color = bool(c.get("highlight")), "tab:red" if c.get("highlight") else "tab:blue"
        ax.scatter(solve["value"], sa["value"], s=70 if big else 20, alpha=1 if big else 0.5, zorder=3 if big else 2,
                   facecolors="none" if c.get("screened") else color, edgecolors=color)
        if big:
            ax.annotate(f"{c['label']} (n={sa['n']}+{solve['n']})", (solve["value"], sa["value"]), fontsize=8,
                        xytext=(4, 4), textcoords="offset points")
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), xlabel="feasible solve", ylabel="strict SA (blocked)",
           title=f"Strict SA vs solve per candidate (n={len(candidates)}"
                 + (f"; hollow: {sum(bool(c.get('screened')) for c in candidates)} screened on a subset)" if any(
                     c.get("screened") for c in candidates) else ")"))
    return _save(fig, path, model_note)


def family_bars(block: dict, path: Path, model_note: str, metric: str = "relaxed_sa") -> Path:
    """Per-family bars (one group per family, one bar per harness) with Wilson CIs; n under each bar."""
    labels = list(block["harnesses"])
    families = sorted({f for lb in labels for f in block["harnesses"][lb]["per_family"]})
    fig, ax = plt.subplots(figsize=(max(5, 2 + 1.6 * len(families)), 4))
    width = 0.8 / max(len(labels), 1)
    for i, lb in enumerate(labels):
        rates = [block["harnesses"][lb]["per_family"].get(f, {}).get(metric) or {} for f in families]
        xs = [j + i * width for j in range(len(families))]
        values = [r.get("value") or 0.0 for r in rates]
        errs = [[max(0.0, v - (r["ci"][0] if r.get("ci") else v)) for v, r in zip(values, rates)],
                [max(0.0, (r["ci"][1] if r.get("ci") else v) - v) for v, r in zip(values, rates)]]
        ax.bar(xs, values, width, yerr=errs, capsize=3, label=lb)
        for x, r in zip(xs, rates):
            ax.text(x, 0.01, f"n={r.get('n', 0)}", ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_xticks([j + width * (len(labels) - 1) / 2 for j in range(len(families))], families)
    ax.set(ylim=(0, 1.05), ylabel=metric.replace("_", " "),
           title=f"{metric.replace('_', ' ')} by family, {block['split']} split")
    ax.legend(fontsize=8)
    return _save(fig, path, model_note)


def reliability_diagram(belief: dict, path: Path, model_note: str) -> Path:
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], ls="--", color="gray", lw=1, label="perfect calibration")
    for label, h in belief["harnesses"].items():
        bins = [b for b in h["reliability"] if b["n"]]
        ax.plot([b["mean_p"] for b in bins], [b["feasible_share"] for b in bins], marker="o",
                label=f"{label} (n_C={h['n_C']}, ECE10={_num(h['ece10'])})")
        for b in bins:
            ax.annotate(str(b["n"]), (b["mean_p"], b["feasible_share"]), fontsize=6, xytext=(3, -8),
                        textcoords="offset points")
    ax.set(xlim=(0, 1), ylim=(-0.02, 1.02), xlabel="mean P(feasible) in bin (10 equal-width bins)",
           ylabel="share of feasible tasks", title=f"Reliability diagram, {belief['split']} split")
    ax.legend(fontsize=7, loc="upper left")
    return _save(fig, path, model_note)


def _num(metric: dict) -> str:
    return "n/a" if metric.get("value") is None else f"{metric['value']:.3f}"


def challenge_transitions(challenge: dict, path: Path, model_note: str) -> Path:
    names = [*TRANSITION_LABELS, "contrast"]
    labels = list(challenge["harnesses"])
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / max(len(labels), 1)
    for i, lb in enumerate(labels):
        h = challenge["harnesses"][lb]
        stats = [h["summary"][n] for n in names]
        ax.bar([j + i * width for j in range(len(names))], [s["mean"] or 0.0 for s in stats], width,
               yerr=[s["sd"] or 0.0 for s in stats], capsize=3,
               label=f"{lb} ({len(h['seeds'])} reps, {h['scorable_blocked']} scorable)")
    ticks = [*TRANSITION_LABELS.values(), next(iter(challenge["harnesses"].values()))["contrast_name"]]
    ax.set_xticks([j + width * (len(labels) - 1) / 2 for j in range(len(names))], ticks)
    ax.axhline(0, color="black", lw=0.8)
    ax.set(ylabel="% (contrast in pp), mean ± SD over replicates", title="Challenge transitions")
    ax.legend(fontsize=8)
    return _save(fig, path, model_note)
