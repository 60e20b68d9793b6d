"""`harnessx diff`: what an edit changed between two candidates of a search run, or between two
contenders of a compare (R0 -> selected on the held-out split).

The tasks that flipped (gained, lost) by stratum and family, the list of flipped trials with their
rollout keys, the harness text diff, and with `--task` the two trajectories side by side.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from harnessx.cli import checks
from harnessx.cli.common import console, friendly_errors


NAMES = "R0, selected, parent:<name> (a search), a contender's label (a compare) or a harness hash (prefix)."


def _value(v: float) -> str:
    return "pass" if v == 1.0 else "fail" if v == 0.0 else f"{v:.3f}"


def diff(
    run_dir: Path = typer.Argument(..., callback=checks.existing("dir"), help="A search run directory (e.g. runs/joint-retail) or the folder a "
                                   "compare wrote (e.g. runs/joint-retail/compare)."),
    first: str = typer.Argument("R0", help=NAMES),
    second: str = typer.Argument("selected", help=NAMES),
    objective: str = typer.Option(None, "--objective", callback=checks.objective, help="Objective whose per-trial value decides a flip "
                                  "(default: the search's)."),
    task: str = typer.Option(None, "--task", help="Show this task's two trajectories side by side."),
    seed: int = typer.Option(None, "--seed", min=0, help="With --task: the seed (default: the first flipped one)."),
    json_out: Path = typer.Option(None, "--json", callback=checks.writable_file, help="Also write the flips (and the side-by-side) as JSON here."),
    limit: int = typer.Option(40, "--limit", min=0, help="Flipped trials listed on screen (all go to --json)."),
    split: str = typer.Option(None, "--split", callback=checks.paired_split, help="A compare folder's split (default heldout when it ran); on a "
                              "search run, a split other than search reads its compare (<run>/compare)."),
) -> None:
    """Tasks the second candidate flipped against the first (default: R0 -> selected), search or held-out.

    On a search run: its search split; on a compare folder (or --split heldout): the held-out split.

    A flip is a (task, seed) both ran, both valid, whose objective value differs; excluded pairs are
    counted, never flipped. Search-split flips are selection data: they show what moved, not a gain;
    held-out flips come from tasks no candidate was selected on.
    """
    from harnessx.comparison.flips import flips
    from harnessx.comparison.compare_trials import open_trials
    from harnessx.comparison.run_trials import text_diff
    from harnessx.formatting.table import Table
    from harnessx.search.objectives import get_objective

    run = open_trials(run_dir, split)
    a, b = run.resolve(first), run.resolve(second)
    obj = get_objective(objective or run.config.get("objective") or "joint")
    trials_a, trials_b = run.trials(a), run.trials(b)
    report = flips(trials_a, trials_b, obj, (a.name, b.name))
    side = _side_by_side(run, report, a.name, b.name, trials_a, trials_b, task, seed) if task else None  # checked first
    console.print(f"{run.path.name}: {a.name} -> {b.name} {run.note}, objective "
                  f"{obj.name}: {len(report.gained)} gained, {len(report.lost)} lost of {report.compared} trials "
                  f"compared ({report.excluded} excluded, {report.unmatched} without a partner)", highlight=False)
    counts = [[family, str(g), str(lost)] for family, (g, lost) in report.by_family().items()]
    console.print(Table("flips by family", ["stratum / family", "gained", "lost"], counts).rich())
    # ids and names are never cut: they are copied into --task and the positional arguments
    listed = [[escape(f.task_id), str(f.seed), f.family, _value(f.first), _value(f.second)] for f in report.flips[:limit]]
    if report.flips:
        console.print(Table(f"flipped trials (first {limit})", ["task", "seed", "family", escape(a.name),
                                                                escape(b.name)], listed).rich())
    text = text_diff(a, b)
    console.print("harness diff:" if text else "harness diff: none (same content)", highlight=False)
    for line in text:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    data = {**report.to_dict(), "split": run.split}
    if side is not None:
        console.print(side.pop("table"))
        data["side_by_side"] = side
    if json_out:
        json_out.write_text(json.dumps(data, indent=2), encoding="utf-8")
        console.print(f"wrote {json_out}", highlight=False)


def _side_by_side(run, report, name_a, name_b, trials_a, trials_b, task, seed) -> dict:
    from rich.table import Table

    from harnessx.comparison.sidebyside import align
    from harnessx.errors import InputError

    if seed is None:
        seed = next((f.seed for f in report.flips if f.task_id == task), None)
    key_of = lambda trials: next((k for s, k in trials if s.task_id == task and (seed is None or s.seed == seed)),  # noqa: E731
                                 None)
    ka, kb = key_of(trials_a), key_of(trials_b)
    if not ka or not kb:
        raise InputError("--task", f"{task} (seed {seed}) was not run by both candidates", "a task both ran")
    rows, divergence = align(run.trajectory(ka), run.trajectory(kb))
    table = Table("#", "step", escape(name_a), escape(name_b), title=f"{task} seed {seed}: side by side"
                  + (f", first divergence at row {divergence}" if divergence is not None else ", no divergence"),
                  title_justify="left")
    for column in table.columns:  # two long texts side by side wrap; nothing is cut with …
        column.overflow = "fold"
    for i, row in enumerate(rows):
        style = "bold yellow" if i == divergence else ("dim" if not row.differs else None)
        table.add_row(str(i), "" if row.step is None else str(row.step), escape(row.first), escape(row.second),
                      style=style)
    return {"table": table, "task_id": task, "seed": seed, "first_key": ka, "second_key": kb, "first_divergence": divergence,
            "rows": [{"step": r.step, "first": r.first, "second": r.second, "differs": r.differs} for r in rows]}


def register(app: typer.Typer) -> None:
    app.command("diff")(friendly_errors(diff))
