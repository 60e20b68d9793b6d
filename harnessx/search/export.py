"""Export the selected harness of a search run, with provenance; optionally register it in MLflow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from harnessx.errors import InputError
from harnessx.harness import Harness
from harnessx.io_read import read_json
from harnessx.io_write import write_atomic
from harnessx.stored import check_finished

MODEL_CODE = Path(__file__).with_name("mlflow_model.py")


def selected_harness(run_dir: str | Path) -> Harness:
    """The run's selected harness (provenance: search, round, scores, model) as written by the search."""
    path = Path(run_dir) / "selected.yaml"
    if not path.is_file():
        hint = "a finished search run directory" if (Path(run_dir) / "config.json").is_file() else "a search run directory"
        raise InputError(str(run_dir), "no selected.yaml (search not finished?)", hint)
    check_finished(run_dir)  # after an interrupted --resume, selected.yaml is an earlier finish's
    return Harness.load(path)


def export(run_dir: str | Path, out: str | Path) -> Harness:
    harness = selected_harness(run_dir)
    harness.save(out)
    return harness


def read_tools(path: str | Path) -> list[dict[str, Any]]:
    """Your agent's tools from a JSON file: a list of OpenAI tools (or bare functions), or a mapping
    with such a list under `tools` (a chat request body); each checked, one line naming the first bad one."""
    from harnessx.harness.openai_format import tool_specs

    data = read_json(path, "a JSON list of OpenAI tools, or an object with `tools`")
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise InputError(str(path), "no list of tools", "a JSON list of OpenAI tools, or an object with `tools`")
    try:
        return [t.openai() for t in tool_specs(tools)]
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from None


def environment_tools(run_dir: str | Path, harness: Harness) -> list[dict[str, Any]]:
    """The tools the run's environment (its suite, with the options the run recorded) offers on its first
    feasible search task, as OpenAI tools; the harness's own deferral tool is not among them."""
    import asyncio

    from harnessx.envs.registry import get_suite
    from harnessx.harness.render import render

    config = read_json(Path(run_dir) / "config.json", "the run's config.json (written when the search started)")
    suite = get_suite(config["env"], **(config.get("suite_options") or {}))
    tasks = suite.tasks("search")
    task = next((t for t in tasks if t.feasible), tasks[0] if tasks else None)  # a blocked twin may mask tools
    if task is None:
        raise InputError("--env-tools", f"environment {config['env']!r} has no search task to read tools from")
    env = suite.make_env()

    async def offered() -> list[Any]:
        try:
            return (await env.reset(task, render(harness, [], env.native_abandon).abandon)).tools
        finally:
            await env.cleanup()

    own = {t.name for t in render(harness, [], env.native_abandon).tools}
    return [t.openai() for t in asyncio.run(offered()) if t.name not in own]


def export_openai(run_dir: str | Path, out: str | Path, tools: list[dict[str, Any]] | None = None,
                  native_abandon: Literal["file", "tool"] = "tool") -> tuple[Harness, dict[str, Any]]:
    """Write the run's selected harness in the OpenAI shape (docs/export.md) for these tools."""
    harness = selected_harness(run_dir)
    try:
        document = harness.to_openai(tools or [], native_abandon)
    except ValueError as exc:
        raise InputError("--tools", str(exc)) from None
    write_atomic(out, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return harness, document


def register(harness: Harness, name: str, tracking_uri: str) -> int:
    """Log the harness as a pyfunc model with the harness as its config, register it under
    `name` and point the alias `champion` at that version; returns the version number."""
    import mlflow
    from mlflow import MlflowClient

    mlflow.set_tracking_uri(tracking_uri)
    mlflow.set_registry_uri(tracking_uri)
    if tracking_uri.startswith("sqlite:///"):
        Path(tracking_uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    client = MlflowClient(tracking_uri=tracking_uri, registry_uri=tracking_uri)
    experiment = client.get_experiment_by_name("harnessx-export")
    experiment_id = experiment.experiment_id if experiment else client.create_experiment(
        "harnessx-export", artifact_location=_artifact_root(tracking_uri, "export"))
    tags = {"harnessx.hash": harness.hash, **{f"harnessx.{k}": str(v) for k, v in harness.provenance.items()
                                               if k in ("search", "round", "model", "simulated", "objective")}}
    with mlflow.start_run(experiment_id=experiment_id, run_name=f"export-{harness.hash[:8]}", tags=tags):
        info = mlflow.pyfunc.log_model(name="harness", python_model=str(MODEL_CODE),
                                       model_config=harness.to_dict(), pip_requirements=["mlflow"])
    version = mlflow.register_model(info.model_uri, name, tags=tags)
    client.set_registered_model_alias(name, "champion", version.version)
    return int(version.version)


def _artifact_root(tracking_uri: str, sub: str) -> str | None:
    if not tracking_uri.startswith("sqlite:///"):
        return None
    return (Path(tracking_uri.removeprefix("sqlite:///")).parent / "artifacts" / sub).resolve().as_uri()
