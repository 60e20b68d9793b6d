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


def log_compare(out_dir: Path, stem: str, files: dict[str, Path], data: dict) -> str | None:
    """A compare written inside a tracked search run (`<run>/compare`) as a nested run of the search's
    MLflow parent run: its splits and contenders as params, each contender's objective figures per split
    as metrics, its JSON, Markdown and HTML as artifacts, and the flips of the last contender against
    the first (R0 -> selected) on each split as a table. None when the search has no MLflow run."""
    import json
    import re

    recorded = out_dir.parent / "mlflow.json"
    if not recorded.is_file():
        return None
    tracking = json.loads(recorded.read_text(encoding="utf-8"))
    if not tracking.get("parent_run") or not tracking.get("tracking_uri"):
        return None
    from mlflow import MlflowClient
    from mlflow.entities import Metric, Param

    client = MlflowClient(tracking_uri=tracking["tracking_uri"])
    parent = client.get_run(tracking["parent_run"])
    labels = [c.get("label", "?") for c in data.get("contenders") or []]
    run_id = client.create_run(parent.info.experiment_id, run_name=stem, tags={
        "mlflow.parentRunId": parent.info.run_id, "harnessx.kind": "compare",
        "harnessx.run": parent.data.tags.get("harnessx.run", ""),
        "mlflow.note.content": f"`harnessx compare` of {', '.join(labels)} on {', '.join(data.get('splits') or [])}: "
                               "tasks no candidate was selected on; the flips table lists what changed."}).info.run_id
    metrics = []
    for split, block in (data.get("splits") or {}).items() if isinstance(data.get("splits"), dict) else []:
        for label, harness in (block.get("harnesses") or {}).items():
            for name, rate in (harness.get("metrics") or harness).items():
                if isinstance(rate, dict) and isinstance(rate.get("value"), (int, float)):
                    key = re.sub(r"[^A-Za-z0-9_\-. :/]", "_", f"{split}.{label}.{name}")[:250]
                    metrics.append(Metric(key, float(rate["value"]), 0, 0))
        metrics += _differences(split, block)
    client.log_batch(run_id, metrics=metrics[:900], params=[Param("contenders", ", ".join(labels)[:6000]),
                                                              Param("stem", stem)])
    for path in files.values():
        client.log_artifact(run_id, str(path), artifact_path="compare")
    moved, split = compare_flips(out_dir, labels)
    columns = ("task", "seed", "family", "direction", labels[0], labels[-1])
    rows = [(f.task_id, f.seed, f.family, "gained" if f.gained else "lost", f.first, f.second) for f in moved.flips]
    client.log_table(run_id, {c: [r[i] for r in rows] for i, c in enumerate(columns)}, f"flips-{split}.json")
    client.log_metric(run_id, f"flips_gained_{split}", len(moved.gained))
    client.log_metric(run_id, f"flips_lost_{split}", len(moved.lost))
    client.log_metric(run_id, f"flips_compared_{split}", moved.compared)  # what the flips are out of
    client.set_terminated(run_id)
    return run_id


def compare_flips(out_dir: Path, labels: list[str]):
    """The flips of the last contender against the first in the compare written to `out_dir` (R0 ->
    selected for a search's compare), by the search's objective, and the split they are on."""
    import json

    from harnessx.comparison.compare_trials import open_trials
    from harnessx.comparison.flips import flips
    from harnessx.search.objectives import get_objective

    config = out_dir.parent / "config.json"
    objective = get_objective((json.loads(config.read_text(encoding="utf-8")) if config.is_file() else {}).get("objective")
                              or "joint")
    trials = open_trials(out_dir)
    first, last = trials.resolve(labels[0]), trials.resolve(labels[-1])
    return flips(trials.trials(first), trials.trials(last), objective, (labels[0], labels[-1])), trials.split


def _differences(split: str, block: dict) -> list:
    """The split's paired differences (each contender minus the first) as metrics: the difference, its
    95% CI and the matched n, named `<split>.diff.<contender>.<metric>[.ci_low|.ci_high|.n]`."""
    import re

    from mlflow.entities import Metric

    out = []
    for pair in block.get("differences") or []:
        for name, d in (pair.get("metrics") or {}).items():
            if not isinstance(d, dict) or not isinstance(d.get("diff"), (int, float)):
                continue
            key = re.sub(r"[^A-Za-z0-9_\-. :/]", "_", f"{split}.diff.{pair.get('first')}.{name}")[:240]
            low, high = d.get("ci") or (None, None)
            out += [Metric(k, float(v), 0, 0) for k, v in ((key, d["diff"]), (key + ".ci_low", low),
                                                           (key + ".ci_high", high), (key + ".n", d.get("n")))
                    if isinstance(v, (int, float))]
    return out
