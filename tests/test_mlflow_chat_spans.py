"""MLflow model-call spans carry what the harness sent the model: the messages (system prompt, task,
injected messages such as a self-check) AND the tool schemas it offered, as MLflow's GenAI pages show
a chat span (`inputs = {"messages": [...], "tools": [...]}`). The trajectory records the schemas once
(its `tools` event) and each model call the names it offered.

A generated family of harnesses (topology x self-check x tool format x deferral mode x end report)
is run on the toy suite, its traces logged to one sqlite store and read back with
`mlflow.search_traces`; the expected tools come from the environment's own tool list and the
harness's deferral switch, not from the trajectory under test. One search then shows it end to end."""

from __future__ import annotations

import asyncio
import itertools
import json
import os

import pytest

from harnessx.agent.runner import Runner
from harnessx.benchmarks.evaluate import evaluate
from harnessx.envs.toy import TOOLS, ToySuite
from harnessx.harness.presets import load_preset
from harnessx.harness.render import render
from harnessx.models.client import ModelClient
from harnessx.search import Search, SearchConfig
from harnessx.search.mlflow_traces import RolloutBatch, TraceContext, log_traces

VARIANTS = [dict(zip(("topology", "self_check", "tool_format", "abandon_mode", "end_report"), v))
            for v in itertools.product(("single", "planner-executor"), ("off", "end", "every-k"),
                                       ("native", "text"), ("tool", "none"), (False, True))]
# a seeded sample keeps the run short; every axis value still appears (checked below)
SAMPLE = [VARIANTS[i] for i in sorted(__import__("random").Random(44).sample(range(len(VARIANTS)), 12))]


def test_the_sample_covers_every_value_of_every_axis():
    for axis in SAMPLE[0]:
        assert {v[axis] for v in SAMPLE} == {v[axis] for v in VARIANTS}, axis


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from mlflow import MlflowClient

    uri = "sqlite:///" + str(tmp_path_factory.mktemp("chat") / "mlflow.db")
    client = MlflowClient(tracking_uri=uri)
    return uri, client, client.create_experiment("chat-spans")


def _expected_tools(switches) -> list[str]:
    names = [t.name for t in TOOLS]
    return names + ([switches.abandon_tool] if switches.abandon_mode == "tool" else [])


@pytest.mark.parametrize("variant", SAMPLE, ids=lambda v: "-".join(str(x) for x in v.values()))
def test_every_model_call_span_holds_the_messages_sent_and_the_tools_offered(store, variant):
    import mlflow

    uri, client, experiment = store
    harness = load_preset("A1").with_switches(**variant, self_check_k=1, executor_max_turns=4, max_steps=6)
    suite = ToySuite(n_sources=1)
    runner = Runner(suite, ModelClient("sim/baseline"), cache=None, concurrency=3)
    evaluation = asyncio.run(evaluate(runner, harness, suite.tasks("search"), [0]))
    run = client.create_run(experiment).info.run_id
    ctx = TraceContext(uri, experiment, run, harness.hash, 0, 0)
    batch = RolloutBatch(list(zip(evaluation.scores, evaluation.results)), runner.trajectory)
    assert len(log_traces(ctx, batch)) == len(evaluation.results)

    mlflow.set_tracking_uri(uri)
    traces = mlflow.search_traces(locations=[experiment], run_id=run, return_type="list")
    assert len(traces) == len(evaluation.results)
    expected = _expected_tools(harness.switches)
    for trace in traces:
        result = next(r for r in evaluation.results if r.key == trace.info.tags["harnessx.rollout"])
        traj = runner.trajectory(result)
        rendered = render(harness, list(TOOLS), "tool")
        records = traj.of_kind("model_call")
        calls = sorted((s for s in trace.data.spans if s.name.startswith("model call")), key=lambda s: s.start_time_ns)
        assert len(calls) == len(records) > 0
        for span, record in zip(calls, records):
            role = span.attributes["role"]
            assert (role, span.attributes["step"]) == (record.data["role"], record.step)
            messages, tools = span.inputs["messages"], span.inputs.get("tools", [])
            # the system prompt of the conversation this call belongs to, from the harness's own rendering
            # (a planner-executor's planner and executor each get theirs; the executor starts afresh)
            wanted = {"planner": rendered.planner_system, "executor": rendered.executor_system}.get(
                role, rendered.planner_system if variant["topology"] == "planner-executor" else rendered.system)
            assert messages[0]["role"] == "system" and messages[0]["author"] == "harness"
            assert messages[0]["content"][:200] == wanted[:200], role
            offered = [t["function"]["name"] for t in tools]
            if role in ("agent", "executor"):
                assert offered == expected, (role, offered)
                assert all(t["type"] == "function" and "parameters" in t["function"] for t in tools)
                assert span.get_attribute("mlflow.chat.tools") == tools  # what MLflow's chat view lists
            else:  # a planner round or the report request offers no tools
                assert role in ("planner", "report") and offered == [], (role, offered)
            for call in (c for m in messages for c in m.get("tool_calls", [])):
                assert call["type"] == "function" and isinstance(json.loads(call["function"]["arguments"]), dict)
            # every message the harness injected before this call is among the messages it sent
            sent = [m["content"] for m in messages if m["author"] == "harness"]
            opened = max(e.seq for e in traj.of_kind("message")
                         if e.author == "harness" and e.data.get("role") == "system" and e.seq < record.seq)
            before = [e.data["content"] for e in traj.of_kind("message")
                      if e.author == "harness" and opened <= e.seq < record.seq]
            assert [text[:200] for text in before] == [text[:200] for text in sent]
    if variant["self_check"] != "off" and variant["topology"] == "single":
        check = harness.text("self_check_prompt").strip()[:60]
        assert any(check in m["content"] for t in traces for s in t.data.spans if s.name.startswith("model call")
                   for m in s.inputs["messages"] if m["author"] == "harness"), "no span shows the injected self-check"


@pytest.mark.slow
def test_a_search_traces_hold_the_system_prompt_the_self_check_and_the_tools(tmp_path, monkeypatch):
    """End to end: a search whose R0 self-checks, logged to its sqlite store, read back as documented."""
    import mlflow

    (tmp_path / "space.yaml").write_text(
        "name: chat\nr0: {name: R0, switches: {abandon_mode: tool, self_check: end}}\n"
        "switches:\n  fmt:\n    addresses: [error]\n    params: {tool_format: [native, text]}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    config = SearchConfig.of(objective="joint", env="toy", rounds=1, proposals=1, runs_dir="runs", name="c",
                             concurrency=3, accept="greedy", proposer="rules", space=str(tmp_path / "space.yaml"))
    asyncio.run(Search(config, suite=ToySuite(n_sources=2)).run())
    uri = json.loads((tmp_path / "runs/c/mlflow.json").read_text())["tracking_uri"]
    mlflow.set_tracking_uri(uri)
    experiment = mlflow.get_experiment_by_name("harnessx-search").experiment_id
    traces = mlflow.search_traces(locations=[experiment], return_type="list")
    assert traces
    spans = [s for t in traces for s in t.data.spans if s.name.startswith("model call")]
    r0 = json.loads((tmp_path / "runs/c/ledger.jsonl").read_text().splitlines()[0])
    from harnessx.harness import Harness

    prompt = Harness.load(tmp_path / "runs/c/harnesses" / f"{r0['hash']}.yaml")
    assert any(s.inputs["messages"][0]["content"].startswith(prompt.text("system_prompt").strip()[:60]) for s in spans)
    check = prompt.text("self_check_prompt").strip()[:60]
    assert any(check in m["content"] and m["author"] == "harness" for s in spans for m in s.inputs["messages"])
    assert all({"get", "put", "defer_task"} <= {t["function"]["name"] for t in s.inputs["tools"]} for s in spans)
    assert os.path.isabs(uri.removeprefix("sqlite:///"))
