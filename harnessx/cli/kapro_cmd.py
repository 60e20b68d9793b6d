"""`harnessx kapro eval|report`: KAPRO's knowing probe and acting run on one harness, its tables."""

from __future__ import annotations

from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.common import ApiBaseOpt, ReasoningEffortOpt, console, friendly_errors
from harnessx.comparison.runs import resolve_contenders
from harnessx.io_write import check_out_dir
from harnessx.models.defaults import DEFAULT_MODEL

app = typer.Typer(no_args_is_help=True, help="KAPRO: does the agent know which tools a task needs, and act so?")


@app.command("eval")
@friendly_errors
def eval_cmd(harness: str = typer.Option("kapro", "--harness", callback=checks.harness_spec, help="Harness file, preset (default: kapro) or "
                                         "search run directory (its selected harness)."),
             model: str = typer.Option(DEFAULT_MODEL, "--model", help="Task-agent model (LiteLLM string)."),
             api_base: str = ApiBaseOpt, reasoning_effort: str = ReasoningEffortOpt,
             split: str = typer.Option("heldout", "--split", callback=checks.one_of(lambda: ("search", "heldout"), "split"), help="search or heldout."),
             epochs: int = typer.Option(1, "--epochs", min=1, max=checks.EPOCHS_MAX, help="Rollouts per task (seeds 0..N-1)."),
             kaware_dir: str = typer.Option(None, "--kaware-dir", help="A folder of KAware *.jsonl files, read "
                                            "recursively (default: the built-in suite)."),
             distractors: int = typer.Option(0, "--distractors", min=0, max=10, help="Also run with up to 10 "
                                             "distractor tools per task and report quadrant deltas."),
             judge_model: str = typer.Option(None, "--judge-model", help="Pass rate from the paper's LLM judge prompt "
                                             "on this model (default: deterministic answer match)."),
             resamples: int = typer.Option(2000, "--resamples", min=100, help="Bootstrap resamples per CI."),
             concurrency: int = typer.Option(8, "--concurrency", min=1),
             out: Path = typer.Option(Path("runs/kapro-eval"), "--out", callback=checks.writable_dir, help="Output dir.")) -> None:
    """Knowing probe + acting run per task; every KAPRO metric with valid n and a bootstrap CI."""
    from harnessx.comparison.setup import progress_bar
    from harnessx.kapro.report import write_report
    from harnessx.kapro.run import KaproRunConfig, run_kapro_eval
    from harnessx.kapro.tables import counts_line, kapro_tables
    from harnessx.report.tables import model_line

    check_out_dir(out)
    chosen = resolve_contenders([harness], include_r0=False)[0].harness
    cfg = KaproRunConfig(harness=chosen, model=model, api_base=api_base, reasoning_effort=reasoning_effort, split=split,
                         epochs=epochs, kaware_dir=str(Path(kaware_dir).resolve()) if kaware_dir else None,
                         distractors=distractors, judge_model=judge_model, n_resamples=resamples,
                         concurrency=concurrency, out=out)
    with progress_bar(None, "kapro eval", console) as progress:
        data = run_kapro_eval(cfg, progress)
    for line in data.get("unread", []):
        console.print(f"not read: {line}", highlight=False, soft_wrap=True)
    console.print(model_line(data["model"], data["simulated"]), highlight=False)
    console.print(counts_line(data), highlight=False, soft_wrap=True)
    for table in kapro_tables(data):
        console.print(table.rich())
    files = write_report(data, out)
    console.print(f"wrote {files['json']}, {files['markdown']}, {files['html']}, {files['png']} "
                  f"({data['model_calls']} model calls, {data['cache_hits']} cached rollouts)", highlight=False)


@app.command("report")
@friendly_errors
def report_cmd(result: Path = typer.Argument(..., callback=checks.existing(), help="A `kapro eval` output dir or its kapro-eval.json."),
               out: Path = typer.Option(None, "--out", callback=checks.writable_dir, help="Output dir (default: the result's dir).")) -> None:
    """Markdown + PNG + HTML: Table 3 and Table 4 shapes, over/underuse, per hop, distractor deltas."""
    from harnessx.kapro.report import load_result, write_report

    data = load_result(result)
    files = write_report(data, check_out_dir(out or (result if result.is_dir() else result.parent)))
    console.print(f"wrote {files['markdown']}, {files['html']}, {files['png']}", highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="kapro")
