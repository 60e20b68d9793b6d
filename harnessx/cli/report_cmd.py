"""`harnessx report runs/<name>`: Markdown + PNG + offline HTML for a run, also logged to MLflow."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.common import console, friendly_errors
from harnessx.comparison.runs import load_run
from harnessx.errors import HarnessXError, InputError
from harnessx.search.uris import DEFAULT_MLFLOW_URI as DEFAULT_TRACKING_URI


def check_existing_store(uri: str) -> None:
    """The MLflow store a report logs to must exist already: a SQLite file that is not there holds no
    run (MLflow would create its folder and an empty database, then fail)."""
    from harnessx.search.uris import check_tracking_uri

    if uri.startswith("sqlite:///") and not Path(uri.removeprefix("sqlite:///")).is_file():
        raise InputError("--tracking-uri", f"no MLflow database at {uri.removeprefix('sqlite:///')}",
                         "the search's MLflow store (sqlite:///path/to/mlflow.db of an existing file)")
    check_tracking_uri(uri, "--tracking-uri")


def mlflow_target(run_dir: Path, run_id: str | None, tracking_uri: str | None) -> tuple[str | None, str]:
    """The MLflow run to log to (--mlflow-run-id, else the search's parent run) and its store."""
    run = load_run(run_dir)
    checkpoint = run.path / "checkpoint.json"
    state = json.loads(checkpoint.read_text(encoding="utf-8")) if checkpoint.is_file() else {}
    return (run_id or state.get("mlflow_parent"),
            tracking_uri or run.config.get("tracking_uri") or DEFAULT_TRACKING_URI)


@friendly_errors
def report_cmd(run_dir: str = typer.Argument(..., callback=checks.existing("dir"), help="A search run directory, runs/<name>."),
               out: str = typer.Option(None, "--out", callback=checks.writable_dir, help="Output dir (default: <run>/report)."),
               mlflow: bool = typer.Option(True, "--mlflow/--no-mlflow", help="Log the report to the run's MLflow run."),
               mlflow_run_id: str = typer.Option(None, "--mlflow-run-id", help="MLflow run to log to (default: the search's)."),
               tracking_uri: str = typer.Option(None, "--tracking-uri", callback=checks.tracking_uri, help=f"MLflow store (default: the search's, else {DEFAULT_TRACKING_URI}).")) -> None:
    """Write Markdown, PNG and HTML reports for a run."""
    run_id, uri = mlflow_target(Path(run_dir), mlflow_run_id, tracking_uri) if mlflow else (None, "")
    if run_id is not None:  # the store must hold the run: checked before anything is written or created
        check_existing_store(uri)
    from harnessx.report.mlflow_log import log_report
    from harnessx.report.run_report import build_report

    md, page, figures = build_report(run_dir, out)
    console.print(f"wrote {md}, {page} and {len(figures)} figures", highlight=False)
    if not mlflow:
        return
    if run_id is None:
        console.print("no MLflow run known for this run directory (pass --mlflow-run-id); not logged", highlight=False)
        return
    try:
        log_report(uri, run_id, [md, page], figures)
    except Exception as exc:  # MLflow's own errors: unknown run, unreachable store
        raise HarnessXError(f"MLflow logging to run {run_id} at {uri} failed: {str(exc).splitlines()[0][:200]}") from None
    console.print(f"logged to MLflow run {run_id} at {uri}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("report")(report_cmd)
