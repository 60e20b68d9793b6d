"""What the search changed, for the report: the accepted edits with their evidence, the R0 -> selected
harness diff, the lineage of every line of the selected harness, and the trials that flipped from R0
to the selected harness on the search split."""

from __future__ import annotations

from harnessx.comparison.flips import flips
from harnessx.comparison.compare_trials import open_trials
from harnessx.comparison.runs import RunDir
from harnessx.errors import InputError
from harnessx.formatting.judged import subset_label
from harnessx.io_read import read_json
from harnessx.harness.model import Harness, diff
from harnessx.report.document import Document
from harnessx.report.tables import Table, rate_cell
from harnessx.search import lineage
from harnessx.search.objectives import get_objective

FLIPS_LISTED = 40


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}g}" if abs(value) < 1e-3 and value else f"{value:.{digits}f}"


def _ci(ci: list | None) -> str:
    return "—" if not ci else f"[{_num(ci[0])}, {_num(ci[1])}]"


def edits_section(doc: Document, run: RunDir) -> None:
    """Every accepted edit by name, with the verdict that accepted it."""
    rows = [r for r in run.ledger if r.get("accepted") and r.get("round")]
    if not rows:
        doc.para("Accepted edits: none; the selected harness is R0.")
        return
    chain = {r["hash"] for r in lineage.chain(list(run.ledger), run.summary.get("selected", {}).get("hash", ""))}
    doc.add(Table("Accepted edits (search split: the evidence each acceptance rule saw)",
                  ["round", "edit", "in selected", "stage", "p", "adjusted p", "mean diff", "95% CI", "reason"],
                  [[str(r["round"]), r.get("edit") or "(no name)", "yes" if r["hash"] in chain else "no",
                    str(r.get("stage", "")), _num(r.get("p_value")), _num(r.get("p_adjusted")),
                    _num(r.get("mean_diff")), _ci(r.get("ci")), str(r.get("reason") or "")] for r in rows],
                  [("mean diff and CI: the paired per-trial objective difference against the incumbent of its "
                    "round; 'in selected': on the chain from R0 to the selected harness")]))


def diff_section(doc: Document, run: RunDir) -> None:
    r0, selected = run.harness("r0"), run.harness("selected")
    text = diff(r0, selected)
    doc.para(f"Harness diff, R0 ({r0.hash}) -> selected ({selected.hash}):" if text
             else "Harness diff: none (the selected harness has R0's content).")
    if text:
        doc.code(text)


def lineage_section(doc: Document, run: RunDir) -> None:
    """Which round and edit introduced each line and switch of the selected harness."""
    rows = lineage.chain(list(run.ledger), run.summary.get("selected", {}).get("hash", ""))
    files = [run.path / "harnesses" / f"{r['hash']}.yaml" for r in rows]
    if not rows or rows[0].get("round") != 0 or not all(f.is_file() for f in files):
        doc.para("Lineage: not available (the ledger's parent links do not lead from R0 to the selected harness).")
        return
    harnesses = [Harness.load(f) for f in files]
    origin = lambda o: ("—", "") if o is None else (str(o.round), o.edit)
    doc.add(Table("Lineage of the selected harness: the round and edit that introduced each line",
                  ["component", "line", "round", "edit"],
                  [[ln.component, ln.text, *origin(ln.origin)] for ln in lineage.lines(rows, harnesses)]))
    changed = [(k, v, o) for k, v, o in lineage.switches(rows, harnesses) if o is not None and o.round > 0]
    if changed:
        doc.add(Table("Switches set by an edit", ["switch", "value", "round", "edit"],
                      [[k, str(v), *origin(o)] for k, v, o in changed]))


def flips_section(doc: Document, run: RunDir, at: str = "") -> None:
    """The trials that flipped from R0 to the selected harness: on the search split (selection data), or
    with `at="compare"` on the split of the compare the run holds (held out: where the claim lives)."""
    try:
        source = open_trials(run.path / at if at else run.path)
        first, second = source.resolve("R0"), source.resolve("selected")
        objective = get_objective(run.config.get("objective") or "joint")
        report = flips(source.trials(first), source.trials(second), objective, ("R0", "selected"))
    except InputError as exc:
        doc.para(f"Flips: not available ({exc}).")
        return
    where = f"{source.split} split, " + ("tasks no candidate was selected on" if at else "selection data")
    if not report.matched:
        doc.para("Flips: no (task, seed) trial that both R0 and the selected harness ran is recorded in this run "
                 "(scores/<hash>.jsonl).")
        return
    summary = (f"{len(report.gained)} gained, {len(report.lost)} lost of {report.compared} trials compared "
               f"({report.excluded} excluded, {report.unmatched} without a partner); objective {objective.name}; {where}")
    doc.add(Table(f"Flips R0 -> selected by stratum / family ({where})", ["stratum / family", "gained", "lost"],
                  [[name, str(g), str(lost)] for name, (g, lost) in report.by_family().items()], [summary]))
    shown = report.flips[:FLIPS_LISTED]
    if shown:
        value = lambda v: "pass" if v == 1.0 else "fail" if v == 0.0 else f"{v:.3f}"
        note = [f"first {FLIPS_LISTED} of {len(report.flips)}; all: harnessx diff {run.path}"] \
            if len(report.flips) > FLIPS_LISTED else []
        doc.add(Table(f"Flipped trials ({where})", ["task", "seed", "family", "R0", "selected", "R0 failure mode"],
                      [[f.task_id, str(f.seed), f.family, value(f.first), value(f.second), f.first_mode or ""]
                       for f in shown], note))


def changes_section(doc: Document, run: RunDir) -> None:
    """The four parts above, in reading order."""
    edits_section(doc, run)
    diff_section(doc, run)
    lineage_section(doc, run)
    flips_section(doc, run)


def candidates_section(doc: Document, run: RunDir) -> None:
    """Every candidate with what its score was measured on, its paired difference from its incumbent on
    the same tasks, and where it is in MLflow (run id) and Optuna (trial number)."""
    rows = [r for r in run.ledger if isinstance(r.get("objective"), dict)]
    if not rows:
        return
    recorded = run.path / "mlflow.json"
    uri = read_json(recorded, "mlflow.json written by harnessx search").get("tracking_uri") if recorded.is_file() else None

    def versus(r: dict) -> str:
        j = r.get("judged") or {}
        if not r.get("parent") or j.get("diff") is None:
            return "—"
        return f"{j['candidate']:.3f} vs {j['incumbent']:.3f} ({j['diff']:+.3f}, {j['matched']} tasks)"

    doc.add(Table("Candidates: what each was judged on, and where it is in MLflow and Optuna",
                  ["candidate", "edit", "judged on", "objective k/n", "vs incumbent, same tasks", "MLflow run", "Optuna trial"],
                  [[f"R{r['round']}.{r['slot']} {r['hash'][:8]}", r.get("edit") or "R0",
                    subset_label(r) or "whole split", rate_cell(r["objective"]) if "k" in r["objective"] else "—",
                    versus(r), str(r.get("mlflow_run_id") or "—"),
                    "—" if r.get("optuna_trial") is None else str(r["optuna_trial"])] for r in rows],
                  [f"MLflow: {uri or 'not tracked'}, experiment harnessx-search; Optuna: "
                   f"optuna-dashboard {run.path / 'optuna.log'}. A screened k/n counts fewer tasks: compare "
                   "candidates by their difference from the incumbent on the same tasks, which is each trial's "
                   "Optuna value."]))
