"""The benchmarks' worked examples (FeasiGen, KAPRO, Confident Fools) as figure blocks.

Each renderer runs the commands its page quotes, on simulated agents in the figures' scratch
directory, and cuts its block out of what those commands wrote: the report's own Markdown tables
(so the docs show exactly what a user's report shows) or, where the page condenses several runs into
one table, rows taken from those reports. `docs/figures.py` registers them; this module only needs
an object with `run(*args)` and `path` (its `Workdir`).
"""

from __future__ import annotations

import json
from collections import Counter

FG_BUILD = ("feasigen", "build", "--env", "retail", "--out", "runs/fg-retail")
FG_EVAL = ("feasigen", "eval", "--suite", "runs/fg-retail", "--model", "sim/baseline", "--model", "sim/weak",
           "--model", "sim/ideal", "--pair", "sim/ideal->sim/weak", "--pair", "sim/weak->sim/baseline",
           "--split", "search", "--split", "heldout", "--split", "independent", "--out", "runs/fg-retail-eval")
FG_REPORT = ("feasigen", "report", "runs/fg-retail-eval")
KAPRO_EVAL = ("kapro", "eval", "--split", "heldout", "--epochs", "3", "--distractors", "10", "--out",
              "runs/kapro-baseline")
KAPRO_REPORT = ("kapro", "report", "runs/kapro-baseline")
CF_PROFILES = ("cf-confident-fool", "cf-careful-searcher", "cf-over-searcher")


def cf_eval(profile: str) -> tuple[str, ...]:
    return ("cf", "eval", "--model", f"sim/{profile}", "--epochs", "3", "--out", f"runs/cf-{profile}")


def section(markdown: str, title: str) -> list[str]:
    """The bold title line starting with TITLE, its table and the italic notes under it, with one blank
    line between the parts (Markdown needs it before a table)."""
    lines = markdown.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"**{title}")), None)
    if start is None:
        raise SystemExit(f"figures: no section **{title}… in the report")
    out = [lines[start]]
    for line in lines[start + 1:]:
        if line.startswith("**"):
            break
        if line.strip() or out[-1].strip():
            out.append(line)
    while not out[-1].strip():
        out.pop()
    return out


def table_rows(lines: list[str]) -> list[list[str]]:
    """The body rows of the first Markdown table in LINES, as cells."""
    rows = [line for line in lines if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def feasigen_retail(w) -> str:
    w.run(*FG_BUILD)
    w.run(*FG_EVAL)
    w.run(*FG_REPORT)
    suite = json.loads((w.path / "runs/fg-retail/suite.json").read_text(encoding="utf-8"))
    reasons = Counter(v.split(":")[0] for v in suite["rejected"].values())
    records = suite["records"].values()
    checked = sum(1 for r in records if "check" in r)
    passed = sum(1 for r in records if r.get("check", {}).get("passed"))
    rejected = ", ".join(f"{reason} {n}" for reason, n in sorted(reasons.items())) or "none"
    build = (f"originals {suite['n_original']} → infeasible {suite['n_infeasible']} (rejected: {rejected}); "
             f"mechanical check passed {passed}/{checked}; flagged {len(suite['flagged'])}")
    report = (w.path / "runs/fg-retail-eval/feasigen-report.md").read_text(encoding="utf-8")
    parts = [build, ""]
    for title in ("SR on Task_original", "FCR on Task_infeasible", "FASS"):
        parts += [*section(report, title), ""]
    return "\n".join(parts).rstrip()


def kapro_baseline(w) -> str:
    w.run(*KAPRO_EVAL)
    w.run(*KAPRO_REPORT)
    report = (w.path / "runs/kapro-baseline/kapro-report.md").read_text(encoding="utf-8")
    return "\n".join(section(report, "kapro on heldout: Table 3 shape"))


def cf_profiles(w) -> str:
    lines = ["| profile | variant | NAS | KIS | regime |", "|---|---|---|---|---|"]
    for profile in CF_PROFILES:
        w.run(*cf_eval(profile))
        w.run("cf", "report", f"runs/cf-{profile}")
        report = (w.path / f"runs/cf-{profile}/report.md").read_text(encoding="utf-8")
        for condition, variant, nas, kis, regime in table_rows(section(report, "NAS (OK items) and KIS")):
            if condition == "with search":
                lines.append(f"| `{profile}` | {variant} | {nas} | {kis} | {regime} |")
    return "\n".join(lines)
