"""`harnessx report runs/<name>`: one document for a search run and whatever was measured after it.

Reads the run directory (config, summary, ledger) and, when present, the outputs of `harnessx
compare` (`compare/compare-*.json`) and the probes (`probes/belief/belief-*.json`,
`probes/challenge/challenge-*.json`), and writes `report.md`, `report.html` and `figures/*.png`
under `<run>/report/`. The header names the model and says when it is simulated.
"""

from __future__ import annotations

from pathlib import Path

from harnessx.comparison.metrics import ROWS
from harnessx.comparison.runs import RunDir, load_run
from harnessx.io_read import read_json
from harnessx.io_write import check_out_dir
from harnessx.report import plots
from harnessx.report.document import Document, Figure
from harnessx.comparison.compare_trials import trial_files
from harnessx.report.edit_sections import candidates_section, changes_section, flips_section
from harnessx.report.sections import FIGURES, belief_section, challenge_section, compare_section
from harnessx.report.tables import Table, model_line, rate_cell
from harnessx.formatting.claim import claim_line

RESULTS = (("compare", "compare/compare-*.json", compare_section, "Held-out comparison"),
           ("belief", "probes/belief/belief-*.json", belief_section, "Belief probe (know)"),
           ("challenge", "probes/challenge/challenge-*.json", challenge_section, "Challenge probe (hold)"))
HINTS = {"compare": "harnessx compare {run} --split heldout", "belief": "harnessx probe belief {run}",
         "challenge": "harnessx probe challenge {run} --replicates 6"}


def run_model(run: RunDir) -> tuple[str, bool]:
    model = run.summary.get("model") or run.config.get("model") or "unknown model"
    simulated = run.summary.get("simulated", model.split("/", 1)[0] in ("sim", "scripted"))
    return model, bool(simulated)


def search_section(doc: Document, run: RunDir, out: Path, note: str) -> None:
    cfg, summary = run.config, run.summary
    keys = ("objective", "env", "proposer", "accept", "rounds", "proposals", "epochs", "seeds")
    doc.add(Table("Search configuration", ["setting", "value"], [[k, str(cfg.get(k, summary.get(k, "")))] for k in keys]))
    cards = {role: run.search_scorecard(role, "") for role in ("r0", "selected")}
    if all(cards.values()):
        doc.add(Table("Search split, R0 vs selected (selection data, not a claim: optimistic for the selected harness)",
                      ["metric", "R0", "selected"],
                      [[label, rate_cell(cards["r0"].get(m)), rate_cell(cards["selected"].get(m))]
                       for m, label in ROWS.items()], [f"accepted rounds: {summary.get('accepted_rounds', [])}"]))
    if run.ledger:
        plots.search_curve(list(run.ledger), out / FIGURES / "search_curve.png", note,
                          str(cfg.get("objective", "objective")))
        doc.add(Figure(f"{FIGURES}/search_curve.png", "Objective per proposal by round (hollow: screened on a subset "
                                                       "of the split, not comparable with the whole-split points); the "
                                                       "incumbent's whole-split score as a step line (broken where "
                                                       "an incumbent was accepted on a subset); stars mark accepted "
                                                       "rounds"))
        highlight = {summary.get("r0", {}).get("hash"): "R0", summary.get("selected", {}).get("hash"): "selected"}
        candidates = [{"label": highlight.get(r.get("hash"), r.get("hash", "")[:8]), "highlight": r.get("hash") in highlight,
                       "strict_sa": r["scorecard"]["strict_sa"], "solve": r["scorecard"]["solve"],
                       "screened": bool((r.get("judged") or {}).get("screened"))}
                      for r in run.ledger if isinstance(r.get("scorecard"), dict)]
        plots.sa_vs_solve(candidates, out / FIGURES / "sa_vs_solve.png", note)
        doc.add(Figure(f"{FIGURES}/sa_vs_solve.png", "Strict SA vs solve per candidate on the search split "
                                                     "(hollow: screened on a subset of its tasks)"))
        candidates_section(doc, run)
    if all(cards.values()):
        block = {"split": "search", "harnesses": {role: {"per_family": cards[role].get("per_family", {})}
                                                  for role in ("r0", "selected")}}
        plots.family_bars(block, out / FIGURES / "family_bars-search-run.png", note)
        doc.add(Figure(f"{FIGURES}/family_bars-search-run.png", "Relaxed SA by family on the search split (selection data)"))


def claim_section(doc: Document, run: RunDir) -> None:
    """The run's one claim (selected vs R0 on a split selection never saw): certified or not, with its figures."""
    claim = run.summary.get("claim")
    doc.heading("Certified claim")
    doc.para(claim_line(claim))
    if not claim or claim.get("difference") is None:
        return
    pp = claim.get("unit") == "pp"

    def pct(v: float) -> str:
        return f"{100 * v:.1f}%" if pp else f"{v:.3f}"

    def signed(v: float) -> str:
        return f"{100 * v:+.1f} pp" if pp else f"{v:+.3f}"

    rows = [["verdict", claim["status"]], ["split", claim["split"]], ["objective", claim["objective"]],
            ["pairs (task, seed)", f"{claim['valid_n']} valid of {claim['n_pairs']} ({claim['excluded_pairs']} excluded)"],
            ["tasks x seeds", f"{claim['valid_tasks']} x {len(claim['seeds'])}"], ["R0", pct(claim["r0_score"])],
            ["selected", pct(claim["selected_score"])],
            ["difference (selected − R0)", (f"{signed(claim['difference'])} [{100 * claim['ci_level']:.0f}% CI "
                                             f"{signed(claim['ci'][0])}, {signed(claim['ci'][1])}]")],
            ["one-sided p", f"{claim['p_value']:.4g} (alpha {claim['alpha']:g})"]]
    doc.add(Table("Certified claim: selected vs R0, paired, on a split selection never saw", ["figure", "value"], rows,
                  [claim["test"]]))


def build_report(run_dir: str | Path, out: str | Path | None = None) -> tuple[Path, Path, list[Path]]:
    """Write the run's report; returns (report.md, report.html, figure paths)."""
    run = load_run(run_dir)
    out = check_out_dir(out) if out else run.path / "report"
    model, simulated = run_model(run)
    note = model_line(model, simulated)
    doc = Document(f"HarnessX report: {run.name}").para(note, banner=simulated)
    doc.para("Every rate shows k/n and a 95% interval; search-split numbers are selection data (descriptive), "
             "held-out numbers come from splits no search selected on.")
    claim_section(doc, run)
    doc.heading("Held-out flips: where the claim lives")
    if trial_files(run.path / "compare"):
        flips_section(doc, run, "compare")
    else:
        doc.para(f"Not measured yet: run `{HINTS['compare'].format(run=run.path)}`.")
    doc.heading("Search")
    search_section(doc, run, out, note)
    doc.heading("What the search changed")
    changes_section(doc, run)
    for kind, pattern, section, title in RESULTS:
        doc.heading(title)
        found = sorted(run.path.glob(pattern))
        if not found:
            doc.para(f"Not measured yet: run `{HINTS[kind].format(run=run.path)}`.")
        for path in found:
            section(doc, read_json(path, f"a result written by `{HINTS[kind].format(run=run.path)}`"), out)
    md, page = doc.write(out)
    return md, page, [out / block.path for block in doc.blocks if isinstance(block, Figure)]
