"""`harnessx feasigen build|sample|agreement|eval|report`: FeasiGen end to end (digest §3)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections import Counter
from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.aliases import aliased
from harnessx.cli.common import (ApiBaseOpt, ReasoningEffortOpt, SandboxOpt, TasksDirOpt, Tau2DirOpt, UserModeOpt, console,
                                 friendly_errors, open_suite, suite_kwargs)
from harnessx.cli.numbers import PROBABILITY_OPEN
from harnessx.errors import InputError
from harnessx.io_read import read_csv, read_json
from harnessx.io_write import check_out_dir, write_atomic

app = typer.Typer(no_args_is_help=True, help=__doc__)
SuiteDirOpt = typer.Option(..., "--suite", help="A suite directory written by `harnessx feasigen build` (one "
                           "dataset); repeat for several (Avg = unweighted mean over them).")
SplitsOpt = typer.Option(["heldout"], "--split", callback=checks.paired_split, help="search, heldout or independent; repeat for several.")
ConcurrencyOpt = typer.Option(8, "--concurrency", min=1, help="Rollouts in flight.")


@app.command("build", cls=aliased("feasigen build"))
@friendly_errors
def build_cmd(env: str = typer.Option("retail", "--env", help="Source environment: retail or terminal."),
              model: list[str] = typer.Option(None, "--model", help="An agent system (LiteLLM model string); "
                                              "repeat (default: sim/baseline, sim/weak, sim/ideal)."),
              out: Path = typer.Option(Path("runs/feasigen-suite"), "--out", callback=checks.writable_dir, help="Where the suite is written."),
              turn_cap: int = typer.Option(None, "--turn-cap", min=1, help="Max turns (default: retail 15, bfcl 10)."),
              retention: str = typer.Option("all", "--retention", help="all (default: every system succeeded) or "
                                            "partial (at least --min-success did)."),
              min_success: int = typer.Option(2, "--min-success", min=1, help="partial retention: successes needed."),
              drop_flagged: bool = typer.Option(False, "--drop-flagged", help="Reject tasks with a failure-mode flag."),
              split: list[str] = typer.Option(None, "--split", callback=checks.paired_split, help="Originals from these splits (default: all)."),
              limit: int = typer.Option(0, "--limit", min=0, help="At most this many originals (0 = all)."),
              seed: int = typer.Option(0, "--seed", min=0), concurrency: int = ConcurrencyOpt, api_base: str = ApiBaseOpt,
              tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt, sandbox: str = SandboxOpt,
              user_mode: str = UserModeOpt) -> None:
    """Run k agent systems on the originals, intersect their tool sets, mask, check, write the suite."""
    from harnessx.feasigen.construct import DEFAULT_SYSTEMS, BuildConfig, build

    check_out_dir(out)
    options = suite_kwargs(env, tau2_dir=tau2_dir, tasks_dir=tasks_dir, sandbox=sandbox, user_mode=user_mode)
    config = BuildConfig(env=env, systems=tuple(model or DEFAULT_SYSTEMS), out=str(out), turn_cap=turn_cap,
                         retention=retention, min_success=min_success, drop_flagged=drop_flagged,
                         splits=tuple(split or ()), limit=limit, seed=seed, concurrency=concurrency,
                         api_base=api_base, suite_options=options)
    config.validate()
    suite = open_suite(env, **options)
    sims = [s for s in config.systems if s.startswith("sim/")]
    console.print(f"[bold]feasigen build[/] env={env} systems={', '.join(config.systems)} turn cap={config.cap()} "
                  f"retention={retention}" + (" — SIMULATED construction agents" if sims else ""), highlight=False)
    manifest = asyncio.run(build(suite, config))
    reasons = Counter(v.split(":")[0] for v in manifest["rejected"].values())
    checked = sum(1 for r in manifest["records"].values() if "check" in r)
    passed = sum(1 for r in manifest["records"].values() if r.get("check", {}).get("passed"))
    from harnessx.formatting.cells import counts_text

    rejected = counts_text(dict(sorted(reasons.items())))
    console.print(f"originals {manifest['n_original']} → infeasible {manifest['n_infeasible']} "
                  f"(rejected: {rejected}); mechanical check passed {passed}/{checked}; "
                  f"flagged {len(manifest['flagged'])}", highlight=False)
    for task_id, flags in list(manifest["flagged"].items())[:10]:
        console.print(f"  flag {task_id}: {'; '.join(flags)}", highlight=False)
    console.print(f"wrote {out}/tasks.jsonl and {out}/suite.json — use it with --env feasigen --tasks-dir {out}",
                  highlight=False)


@app.command("sample")
@friendly_errors
def sample_cmd(suite: list[Path] = typer.Option(None, "--suite", help="Built suite dirs (one dataset each); repeat."),
               size: list[str] = typer.Option(None, "--size", help="NAME=N: a dataset's infeasible count; repeat."),
               confidence: float = typer.Option(0.95, "--confidence", callback=PROBABILITY_OPEN),
               margin: float = typer.Option(0.05, "--margin", callback=PROBABILITY_OPEN),
               seed: int = typer.Option(0, "--seed", min=0),
               out: Path = typer.Option(None, "--out", callback=checks.writable_file, help="CSV for the annotators (with --suite).")) -> None:
    """Cochran + finite population correction sample, allocated proportionally per dataset."""
    from harnessx.feasigen.suite import read_manifest, read_tasks
    from harnessx.feasigen.verification import allocate, cochran, draw, sample_size

    items: dict[str, list[str]] = {}
    for root in suite or []:
        name = read_manifest(root).get("dataset") or root.name
        ids = items.setdefault(name, [])
        ids.extend(t.id for t in read_tasks(root) if not t.feasible and t.id not in ids)
    sizes = {k: len(v) for k, v in items.items()}
    for text in size or []:
        name, _, n = text.partition("=")
        if not name or not n.isdigit() or int(n) < 1:
            raise InputError("--size", f"cannot read {text!r}", "NAME=N with N >= 1, e.g. BFCL=445")
        sizes[name] = int(n)
    if not sizes:
        raise InputError("--suite/--size", "nothing to sample", "one --suite DIR or --size NAME=N")
    total = sum(sizes.values())
    alloc = allocate(sizes, confidence, margin)
    console.print(f"N = {total}; Cochran n0 = {cochran(confidence, margin):.2f}; with FPC n = "
                  f"{sample_size(total, confidence, margin)}; allocated {' + '.join(map(str, alloc.values()))} = "
                  f"{sum(alloc.values())} ({', '.join(f'{k} {v}/{sizes[k]}' for k, v in alloc.items())})", highlight=False)
    if items and out:
        drawn = draw(items, seed, confidence=confidence, margin=margin)
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer)
        writer.writerow(["dataset", "task_id", "annotator_1", "annotator_2"])
        for dataset, ids in drawn.items():
            writer.writerows([dataset, i, "", ""] for i in ids)
        write_atomic(out, buffer.getvalue())
        console.print(f"wrote {out}: fill annotator_1/annotator_2 with yes (mask removes a required capability) "
                      f"or no, then run `harnessx feasigen agreement {out}`", highlight=False)


YES, NO = {"yes", "y", "1", "true", "confirmed"}, {"no", "n", "0", "false", "rejected"}


def _label(value: str, where: str, column: str) -> bool:
    text = (value or "").strip().lower()
    if text in YES or text in NO:
        return text in YES
    raise InputError(where, f"column '{column}' = {value!r}", "yes or no")


@app.command("agreement")
@friendly_errors
def agreement_cmd(labels: Path = typer.Argument(..., callback=checks.existing("file"), help="CSV: dataset, task_id, annotator_1, annotator_2 "
                                               "[, final] (yes/no).")) -> None:
    """Raw agreement, Cohen's κ, Gwet's AC1 and the confirmed share with its Wilson 95% CI."""
    from harnessx.feasigen.verification import agreement, confirmed_share
    from harnessx.scoring.rate import rate_text

    rows = read_csv(labels, "a CSV with columns dataset, task_id, annotator_1, annotator_2 (yes/no)",
                    ("annotator_1", "annotator_2"))
    groups: dict[str, list[tuple[bool, bool, bool]]] = {}
    for number, row in enumerate(rows, start=2):
        where = f"{labels}:{number}"
        a, b = _label(row["annotator_1"], where, "annotator_1"), _label(row["annotator_2"], where, "annotator_2")
        final = _label(row["final"], where, "final") if row.get("final") else (a and b)
        groups.setdefault(row.get("dataset") or "all", []).append((a, b, final))
    everything = [x for g in groups.values() for x in g]
    for name, group in [*groups.items(), *([("total", everything)] if len(groups) > 1 else [])]:
        agree = agreement([x[0] for x in group], [x[1] for x in group])
        share = confirmed_share(sum(x[2] for x in group), len(group))
        raw = rate_text(agree.n - agree.disagreements, agree.n)  # k/n agreeing, Wilson 95%
        console.print(f"{name}: n={agree.n} raw agreement {raw} ({agree.disagreements} disagreements), "
                      f"Cohen's κ {agree.kappa:.2f}, Gwet's AC1 {agree.ac1:.2f}; confirmed {share['k']}/{share['n']} "
                      f"{100 * share['value']:.1f}% Wilson 95% [{100 * share['ci'][0]:.1f}, {100 * share['ci'][1]:.1f}]",
                      highlight=False)


@app.command("eval", cls=aliased("feasigen eval"))
@friendly_errors
def eval_cmd(suite: list[Path] = SuiteDirOpt,
             harness: str = typer.Option(None, "--harness", callback=checks.harness_spec, help="The single agents' harness: a file, preset or "
                                         "search run directory (its selected harness), run with the dataset's turn "
                                         "cap (default: the feasigen-stop preset)."),
             model: list[str] = typer.Option(None, "--model", help="A single-agent system (LiteLLM model "
                                             "string); repeat (default: sim/baseline)."),
             pair: list[str] = typer.Option(None, "--pair", help="PLANNER->EXECUTOR (any two models); repeat."),
             split: list[str] = SplitsOpt, epochs: int = typer.Option(1, "--epochs", min=1, max=checks.EPOCHS_MAX),
             turn_cap: int = typer.Option(None, "--turn-cap", min=1), concurrency: int = ConcurrencyOpt,
             api_base: str = ApiBaseOpt, reasoning_effort: str = ReasoningEffortOpt, sandbox: str = SandboxOpt,
             out: Path = typer.Option(Path("runs/feasigen-eval"), "--out", callback=checks.writable_dir)) -> None:
    """Single agents on originals + infeasibles, planner → executor pairs on infeasibles; every metric."""
    from harnessx.comparison.setup import progress_bar
    from harnessx.feasigen.evaluate import EvalConfig, parse_pair, run_eval
    from harnessx.feasigen.report import tables

    check_out_dir(out)
    chosen = None
    if harness:
        from harnessx.comparison.runs import resolve_contenders

        chosen = resolve_contenders([harness], include_r0=False)[0]
    suites = [open_suite("feasigen", **suite_kwargs("feasigen", tasks_dir=str(s), sandbox=sandbox)) for s in suite]
    from harnessx.cli.compare_cmd import read_line

    for path, opened in zip(suite, suites):
        read = opened.tasks()
        console.print(read_line(f"feasigen suite {path}", len(read), {s: [t for t in read if t.split == s] for s in split}, 0),
                      highlight=False, markup=False)  # wrapped at the terminal's width (a suite path can be long)
    config = EvalConfig(systems=tuple(model or ("sim/baseline",)), pairs=tuple(parse_pair(p) for p in pair or []),
                        splits=tuple(split), epochs=epochs, turn_cap=turn_cap, concurrency=concurrency,
                        api_base=api_base, reasoning_effort=reasoning_effort, out=str(out),
                        harness=chosen.harness if chosen else None)
    with progress_bar(None, "feasigen eval", console) as progress:
        data = asyncio.run(run_eval(suites, config, progress))
    if chosen:
        data["harness"] = f"{chosen.label}:{chosen.harness.hash}"
    data["suite"] = ", ".join(map(str, suite))
    write_atomic(out / "results.json", json.dumps(data, indent=1))
    from harnessx.feasigen.report import model_note

    console.print(model_note(data), highlight=False)
    for table in tables(data):
        console.print(table.rich())
    console.print(f"wrote {out}/results.json — `harnessx feasigen report {out}` writes Markdown, HTML and PNG",
                  highlight=False)


@app.command("report")
@friendly_errors
def report_cmd(run: Path = typer.Argument(..., callback=checks.existing("dir"), help="An eval output dir (holding results.json)."),
               out: Path = typer.Option(None, "--out", callback=checks.writable_dir, help="Output dir (default: the eval dir).")) -> None:
    """The paper's tables and the Pareto plot as Markdown, HTML and PNG."""
    from harnessx.feasigen.report import write_report

    path = run / "results.json"
    data = read_json(path, "results.json in the --out of `harnessx feasigen eval`")
    if not isinstance(data, dict):
        raise InputError(str(path), f"top level is {type(data).__name__}", "the results object of `feasigen eval`")
    files = write_report(data, check_out_dir(out or run), data.get("suite", ""))
    console.print(f"wrote {files['markdown']}, {files['html']}, {files['png']}", highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="feasigen", help="FeasiGen: build masked suites, verify, evaluate STOP, report.")
