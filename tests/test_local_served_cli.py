"""The served model through the CLI: `harnessx eval --model openai/smollm2 --api-base <loopback>` runs
with no OPENAI_API_KEY set (a loopback server gets a placeholder key), and decodes as the in-process
`local/smollm2` does (the server's default repeat penalty is the engine's): on the same starter tasks
the first call of every rollout answers the same and every rollout ends the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.harness import load_preset

pytestmark = [pytest.mark.realmodel, pytest.mark.requires("local-server")]


def first_call_and_outcome(traj: Path) -> tuple:
    """What the agent answered to its first model call (messages, tool calls, malformed replies) and
    how the rollout ended."""
    events = [json.loads(line) for line in traj.read_text().splitlines()]
    calls = [i for i, e in enumerate(events) if e["kind"] == "model_call"]
    first = events[calls[0] + 1: calls[1] if len(calls) > 1 else len(events)]
    answer = [(e["kind"], e["data"]) for e in first
              if e["author"] == "agent" and e["kind"] in ("message", "tool_call", "malformed")]
    end = next(e["data"] for e in events if e["kind"] == "end")
    return json.dumps(answer, sort_keys=True), end["status"], end["reward"], end["stop_reason"]


def rollouts(out: Path) -> dict[tuple[str, int], tuple]:
    found = {}
    for traj in (out / "rollouts").rglob("*.jsonl"):
        start = json.loads(traj.read_text().splitlines()[0])["data"]
        found[(start["task_id"], start["seed"])] = first_call_and_outcome(traj)
    return found


def test_served_and_in_process_model_answer_alike_through_the_cli_without_a_key(tmp_path, monkeypatch):
    from harnessx.local.server import serve

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    harness = tmp_path / "short.yaml"
    load_preset("A1").with_switches(max_steps=2, max_output_tokens=48).save(harness)
    common = ["eval", "--harness", str(harness), "--env", "starter", "--sources", "2", "--resamples", "100"]
    with serve("smollm2") as server:
        served = CliRunner().invoke(app, [*common, "--model", "openai/smollm2", "--api-base", server.url,
                                          "--out", str(tmp_path / "served")])
    assert served.exit_code == 0, served.output
    in_process = CliRunner().invoke(app, [*common, "--model", "local/smollm2", "--out", str(tmp_path / "local")])
    assert in_process.exit_code == 0, in_process.output
    a, b = rollouts(tmp_path / "served"), rollouts(tmp_path / "local")
    assert len(a) == 4 and a.keys() == b.keys()
    differ = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
    assert not differ, differ
