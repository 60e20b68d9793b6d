"""MLflow tells the same story as the viewer: a toy search with the default store, then what a user
opens. Traces carry what the harness sent the model and the reply, their status is the rollout's
outcome (a failed or excluded rollout is never OK), two harnesses' traces of one task are told apart
by name, a candidate run says what its scores count, the store is recorded by absolute path, and the
Python calls docs/search.md shows run as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from toy_search import toy_search_in

from harnessx.harness import Harness

DOC = Path(__file__).resolve().parent.parent / "docs" / "search.md"


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    return toy_search_in(tmp_path_factory.mktemp("mlflow"), "t", n_sources=4, concurrency=4)


def documented_block() -> str:
    text = DOC.read_text(encoding="utf-8")
    return re.search(r"<!-- mlflow-traces-example -->\n```python\n(.*?)```", text, re.S).group(1)


@pytest.mark.slow
def test_the_documented_trace_calls_run_as_written_and_tell_outcomes_and_harnesses_apart(searched, monkeypatch):
    from mlflow.entities import TraceState

    monkeypatch.chdir(searched)
    scope: dict = {}
    exec(compile(documented_block(), str(DOC), "exec"), scope)  # noqa: S102 - the docs' own example
    traces, same_task, of_run = scope["traces"], scope["same_task"], scope["of_run"]
    assert traces and of_run and all(t.info.trace_metadata["mlflow.sourceRun"] == scope["run_id"] for t in of_run)
    for trace in traces:
        outcome = trace.info.tags["harnessx.outcome"]
        assert outcome in ("pass", "fail", "excluded")
        assert (trace.info.state == TraceState.OK) == (outcome == "pass")
    assert {t.info.tags["harnessx.outcome"] for t in traces} >= {"pass", "fail"}
    names = [t.info.tags["mlflow.traceName"] for t in same_task]
    assert len(same_task) > 1 and len(set(names)) == len(names)  # each harness's trace of the task has its own name
    assert all(t.info.tags["harnessx.hash"][:8] in t.info.tags["mlflow.traceName"] for t in same_task)


@pytest.mark.slow
def test_a_model_call_span_carries_what_the_harness_sent_and_the_reply(searched, monkeypatch):
    import mlflow

    monkeypatch.chdir(searched)
    scope: dict = {}
    exec(compile(documented_block(), str(DOC), "exec"), scope)  # noqa: S102
    selected = json.loads((searched / "runs/t/summary.json").read_text())["selected"]["hash"]
    system = next(t for t in scope["traces"] if t.info.tags["harnessx.hash"] == selected)
    calls = [s for s in system.data.spans if s.name.startswith("model call")]
    assert calls
    first = calls[0].inputs["messages"]
    prompt = Harness.load(searched / "runs/t/harnesses" / f"{selected}.yaml").text("system_prompt")
    assert first[0]["role"] == "system" and prompt.strip()[:60] in first[0]["content"]
    assert any(m["role"] == "user" for m in first)
    later = calls[-1].inputs["messages"]
    assert len(later) >= len(first) and ("content" in calls[-1].outputs or "tool_calls" in calls[-1].outputs)
    assert mlflow.get_tracking_uri()  # the block set it


@pytest.mark.slow
def test_the_store_is_recorded_by_absolute_path_and_candidate_runs_say_what_they_count(searched):
    from mlflow import MlflowClient

    config = json.loads((searched / "runs/t/config.json").read_text())
    recorded = json.loads((searched / "runs/t/mlflow.json").read_text())
    expected = "sqlite:///" + str((searched / "mlruns/mlflow.db").resolve())
    assert config["tracking_uri"] == recorded["tracking_uri"] == expected
    client = MlflowClient(tracking_uri=expected)  # from any folder
    rows = [json.loads(line) for line in (searched / "runs/t/ledger.jsonl").read_text().splitlines()]
    for row in rows:
        run = client.get_run(row["mlflow_run_id"])
        assert run.data.tags["harnessx.judged_on"] == "the whole search split"
        assert run.data.metrics["judged_tasks"] == row["judged"]["tasks"]
        if row["parent"]:
            assert run.data.metrics["diff_vs_incumbent_same_tasks"] == pytest.approx(row["judged"]["diff"])
            assert f"paired difference {row['judged']['diff']:+.3f}" in run.data.tags["mlflow.note.content"]


@pytest.mark.slow
def test_compare_of_a_tracked_search_logs_a_nested_run_with_its_tables_and_flips(searched, monkeypatch):
    from mlflow import MlflowClient
    from typer.testing import CliRunner

    from harnessx.cli.main import app
    from harnessx.comparison.compare_trials import open_trials
    from harnessx.comparison.flips import flips
    from harnessx.search.objectives import get_objective

    monkeypatch.chdir(searched)
    out = CliRunner().invoke(app, ["compare", "runs/t", "--concurrency", "4"])
    assert out.exit_code == 0, out.output
    run_id = re.search(r"logged to MLflow as run (\w+)", out.output).group(1)
    recorded = json.loads((searched / "runs/t/mlflow.json").read_text())
    client = MlflowClient(tracking_uri=recorded["tracking_uri"])
    run = client.get_run(run_id)
    assert run.data.tags["mlflow.parentRunId"] == recorded["parent_run"] and run.data.tags["harnessx.kind"] == "compare"
    artifacts = {a.path for a in client.list_artifacts(run_id)} | {a.path for a in client.list_artifacts(run_id, "compare")}
    assert any(p.endswith(".html") for p in artifacts) and any(p.startswith("flips-") for p in artifacts)
    trials = open_trials(searched / "runs/t/compare")
    ends = [trials.resolve(c["hash"]) for c in (trials.header["contenders"][0], trials.header["contenders"][-1])]
    moved = flips(trials.trials(ends[0]), trials.trials(ends[1]), get_objective("joint"))
    assert run.data.metrics[f"flips_gained_{trials.split}"] == len(moved.gained)
    assert run.data.metrics[f"flips_lost_{trials.split}"] == len(moved.lost)
    assert any(k.endswith(".strict_sa") for k in run.data.metrics)
