"""Table cells: the one place a printed number gets its n and its 95% interval.

A rate (a count over trials) is `k/n p% [lo, hi]` with its exclusions (`harnessx.scoring.rate.rate_text`);
a mean over trials is `v [lo, hi] (n=…)`; a paired difference `+x pp [lo, hi] (n=…, s src)`; a mean over
replicates `m ± sd [lo, hi] (r reps, n=… each)` with a t interval for the mean. A paired table's title
names the same contrast its columns read (`paired_title`), so "selected − R0" is never titled otherwise.
"""

from __future__ import annotations

import math

from scipy.stats import t as student_t

from harnessx.scoring.rate import rate_text


def rate_cell(rate: dict | None) -> str:
    """A rate's JSON (`Rate.to_dict()`): k/n, %, Wilson 95% CI, exclusions."""
    if not rate or not rate.get("n"):
        return ("n/a (n=0)" + (f", {rate['excluded']} excl." if rate and rate.get("excluded") else "")
                + (f", {rate['unpaired']} unpaired" if rate and rate.get("unpaired") else ""))
    return rate_text(rate["k"], rate["n"], rate.get("excluded", 0), tuple(rate["ci"]) if rate.get("ci") else None,
                     rate.get("unpaired", 0))


def value_cell(value: dict | None, signed: bool = False) -> str:
    """A mean over trials (`MeanValue.to_dict()`): value, 95% CI, n and exclusions."""
    if not value or not value.get("n"):
        return "n/a (n=0)" + (f", {value['excluded']} excl." if value and value.get("excluded") else "")
    fmt = "{:+.3f}" if signed else "{:.3f}"
    text = fmt.format(value["value"])
    if value.get("ci"):
        text += " [" + ", ".join(fmt.format(x) for x in value["ci"]) + "]"
    return text + f" (n={value['n']}" + (f", {value['excluded']} excl.)" if value.get("excluded") else ")")


def objective_cell(objective: dict | None) -> str:
    """A search objective's value: a count as k/n % [CI] (`Rate`), a mean as value [CI] (n) (`MeanValue`)."""
    if not objective:
        return "n/a"
    if objective.get("kind") == "mean" or not float(objective.get("k") or 0).is_integer():
        return value_cell(objective)
    return rate_cell(objective)


def diff_cell(diff: dict) -> str:
    if diff.get("diff") is None:
        return "n/a (n=0)"
    lo, hi = diff["ci"]
    return f"{100 * diff['diff']:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}] (n={diff['n']}, {diff['n_sources']} src)"


def unpaired_diff_cell(a: dict | None, b: dict | None) -> str:
    """a − b for two rates on different trials (e.g. held-out vs search split): +x pp and Newcombe's
    hybrid-score 95% interval, built from the two Wilson intervals (Newcombe 1998, method 10)."""
    if not a or not b:
        return "n/a"
    if not a.get("n") or not b.get("n"):
        return f"n/a (n={a.get('n', 0)} vs {b.get('n', 0)})"
    pa, pb = a["k"] / a["n"], b["k"] / b["n"]
    (la, ua), (lb, ub) = a["ci"], b["ci"]
    d = pa - pb
    lo, hi = d - math.hypot(pa - la, ub - pb), d + math.hypot(ua - pa, pb - lb)
    return f"{100 * d:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}] (n={a['n']} vs {b['n']})"


def metric_cell(metric: dict, signed: bool = False) -> str:
    if metric.get("value") is None:
        return f"n/a (n={metric.get('n', 0)})"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    lo, hi = metric["ci"]
    return f"{fmt.format(metric['value'])} [{fmt.format(lo)}, {fmt.format(hi)}] (n={metric['n']})"


def replicate_ci(mean: float, sd: float | None, reps: int, lo: float, hi: float) -> tuple[float, float] | None:
    """Student-t 95% interval for a mean over `reps` replicates, clipped to [lo, hi]; None below 2 reps."""
    if reps < 2 or sd is None:
        return None
    half = float(student_t.ppf(0.975, reps - 1)) * sd / math.sqrt(reps)
    return max(lo, mean - half), min(hi, mean + half)


def mean_sd_cell(ms: dict, lo: float = 0.0, hi: float = 100.0) -> str:
    """Mean ± sample SD over replicates (in %), its t 95% interval, the replicates and each one's n."""
    if not ms["n"]:
        return "n/a (0 reps)"
    per = ms.get("n_per_rep")
    n_text = "" if not per else (f", n={per[0]} each" if per[0] == per[1] else f", n={per[0]}–{per[1]} each")
    reps = f"{ms['n']} reps" if ms["n"] > 1 else "1 rep"
    body = f"{ms['mean']:.1f} ± {ms['sd']:.1f}" if ms["sd"] is not None else f"{ms['mean']:.1f}"
    ci = replicate_ci(ms["mean"], ms["sd"], ms["n"], lo, hi)
    body += f" [{ci[0]:.1f}, {ci[1]:.1f}]" if ci else " [no CI: 1 rep]"
    return f"{body} ({reps}{n_text})"


def contrast(diff: dict) -> str:
    """The contrast a paired-difference record measures: `first − second` (harness − reference)."""
    return f"{diff['first']} − {diff['second']}"


def paired_title(head: str, diffs: list[dict], detail: str = "") -> str:
    """`<head> (<a − ref>[; …])`: the title names exactly the contrasts the columns show, in the same
    words (`each harness − <ref>` when several share one reference, the first contender)."""
    refs = {d["second"] for d in diffs}
    if len(diffs) == 1 or len(refs) > 1:
        what = "; ".join(contrast(d) for d in diffs)
    else:
        what = f"each harness − {diffs[0]['second']}"
    return f"{head} ({what}" + (f"; {detail})" if detail else ")")


def move_line(row: dict, before: dict) -> str:
    """A move of the search (a ledger row the rule accepted): its round and edit, the objective on the search split, and Δ against the incumbent it replaced.
    `row["objective"]` and `before` are objective values as `Rate.to_dict()` / `MeanValue.to_dict()`;
    without `before`, Δ is the row's paired mean difference (`mean_diff`)."""
    after = row["objective"]
    name = f"{after['name']} " if after.get("name") else ""
    text = f"round {row['round']}: accepted {row.get('edit') or row.get('hash')}: {name}{objective_cell(after)}"
    mean = after.get("kind") == "mean" or not float(after.get("k") or 0).is_integer()
    show = lambda d: f"{d:+.3f}" if mean else f"{100 * d:+.1f} pp"  # noqa: E731
    if after.get("value") is not None and before.get("value") is not None:
        return f"{text}; Δ {show(after['value'] - before['value'])} vs the incumbent (n={after['n']} vs {before['n']})"
    if row.get("mean_diff") is not None:
        return f"{text}; Δ {show(row['mean_diff'])} paired (n={after['n']})"
    return text


def counts_text(counts: dict, empty: str = "none") -> str:
    """A tally as `name n, name n` in its own order (never a dict's repr); `empty` when it has none."""
    return ", ".join(f"{name} {n}" for name, n in counts.items()) or empty
