"""`harnessx cf eval|report`: Confident Fools on the built-in suite (or your items and corpus)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.common import ApiBaseOpt, ReasoningEffortOpt, console, friendly_errors
from harnessx.models import DEFAULT_MODEL

app = typer.Typer(no_args_is_help=True, help="Confident Fools: when to search and when to answer from memory.")


@app.command("eval")
@friendly_errors
def eval_cmd(harness: str = typer.Option(None, "--harness", callback=checks.harness_spec, help="Harness file, preset or run directory (default: "
                                         "the paper's prompts, cf-search / cf-nosearch per condition)."),
             condition: list[str] = typer.Option(["search", "none"], "--condition",
                                                 help="search (web_search tool) and/or none (no tool); repeat."),
             model: str = typer.Option(DEFAULT_MODEL, "--model", help="Task-agent model (LiteLLM string); default: "
                                       "the simulated agent, whose numbers are never a model's result."),
             api_base: str = ApiBaseOpt, reasoning_effort: str = ReasoningEffortOpt,
             split: str = typer.Option("all", "--split", callback=checks.one_of(lambda: ("search", "heldout", "all"), "split"), help="search, heldout or all."),
             epochs: int = typer.Option(1, "--epochs", min=1, max=checks.EPOCHS_MAX, help="Rollouts per item (seeds)."),
             items: str = typer.Option(None, "--items", help="Your items (JSONL/JSON/YAML) instead of the built-in ones."),
             corpus: str = typer.Option(None, "--corpus", help="The articles your items' search runs over."),
             index: str = typer.Option(None, "--index", callback=checks.writable_file, help="Keep the FTS5 index in this SQLite file."),
             judge_model: str = typer.Option(None, "--judge-model", help="LiteLLM model for the paper's alignment "
                                             "judge prompt (default: the deterministic overlap judge)."),
             resamples: int = typer.Option(3000, "--resamples", min=100, help="Question-bootstrap resamples."),
             concurrency: int = typer.Option(8, "--concurrency", min=1),
             out: Path = typer.Option(Path("runs/cf-eval"), "--out", callback=checks.writable_dir, help="Output directory.")) -> None:
    """Every Confident Fools metric for each condition: NAS/KIS (judge-free and judged) with
    question-bootstrap CIs, accuracy, accuracy among answered, search and abstention rates, six
    outcomes, cued vs uncued NAS, the regime. Writes <out>/cf-eval.json; `harnessx cf report <out>`."""
    from harnessx.cf.report import tables
    from harnessx.cf.run import CFEvalConfig, run_eval
    from harnessx.comparison.setup import progress_bar
    from harnessx.io_write import check_out_dir
    from harnessx.report.tables import model_line

    check_out_dir(out)
    chosen = None
    if harness is not None:  # a preset, harness file or run directory (its selected harness)
        from harnessx.comparison.runs import resolve_contenders

        chosen = resolve_contenders([harness], include_r0=False)[0].harness
    cfg = CFEvalConfig(harness=chosen, conditions=tuple(condition), model=model, api_base=api_base,
                       reasoning_effort=reasoning_effort, split=split,
                       epochs=epochs, items=items, corpus=corpus, judge_model=judge_model, resamples=resamples,
                       concurrency=concurrency, out=str(out), suite_options={"index": index} if index else {})
    with progress_bar(None, "cf eval", console) as progress:
        data = asyncio.run(run_eval(cfg, progress))
    console.print(model_line(data["model"], data["simulated"]), highlight=False)
    read = data.get("n_read", data["n_items"])
    console.print(f"read {read} items; evaluated {data['n_items']} ({data['split']}) x {len(data['seeds'])} epoch(s) "
                  f"per condition; skipped {read - data['n_items']} (other splits)", highlight=False, soft_wrap=True)
    for table in tables(data):
        console.print(table.rich())
    console.print(f"wrote {out / 'cf-eval.json'} (report: harnessx cf report {out})", highlight=False)


@app.command("report")
@friendly_errors
def report_cmd(result: Path = typer.Argument(..., callback=checks.existing(), help="The --out directory of `harnessx cf eval` (or its JSON)."),
               out: Path = typer.Option(None, "--out", callback=checks.writable_dir, help="Where to write (default: next to the result).")) -> None:
    """The paper's tables and the (NAS, KIS) regime plot: report.md, report.html, figures/regime.png."""
    from harnessx.cf.report import load_result, write_report
    from harnessx.io_write import check_out_dir

    data = load_result(result)
    target = check_out_dir(out or (result if result.is_dir() else result.parent))
    files = write_report(data, target)
    console.print(f"wrote {files['markdown']}, {files['html']}, {files['png']}", highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="cf")
