"""Log a report's files (Markdown, HTML, figures) as artifacts of an existing MLflow run."""

from __future__ import annotations

from pathlib import Path

from harnessx.search.uris import DEFAULT_MLFLOW_URI as DEFAULT_TRACKING_URI  # noqa: F401 - one default store


def log_report(tracking_uri: str, run_id: str, files: list[Path], figures: list[Path]) -> None:
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=tracking_uri)
    client.get_run(run_id)  # fails early, with MLflow's message, on an unknown run
    for path in files:
        client.log_artifact(run_id, str(path), artifact_path="report")
    for path in figures:
        client.log_artifact(run_id, str(path), artifact_path="report/figures")
    client.set_tag(run_id, "harnessx.report", "report/report.html")
