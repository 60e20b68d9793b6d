"""A real (simulated) search for the viewer tests, plus a tampered and a `<script>` trajectory."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from harnessx.envs.toy import ToySuite
from harnessx.search import Search, SearchConfig
from harnessx.trajectory import Trajectory

SCRIPT = "<script>document.title='pwned'</script><b>bold?</b>"
SCRIPT_KEY = "5c5c5c5c5c5c5c5c5c5c5c5c"


def make_search(runs: Path, name: str = "demo", rounds: int = 2, proposals: int = 2) -> Path:
    config = SearchConfig.of(objective="joint", env="toy", rounds=rounds, proposals=proposals, runs_dir=str(runs),
                          name=name, tracking_uri=None, concurrency=4, accept="greedy", proposer="rules")
    asyncio.run(Search(config, suite=ToySuite(n_sources=4)).run())
    return runs / name


def agent_abandon_key(run: Path) -> str:
    """A rollout of the run whose trajectory has an agent-authored abandon event."""
    for file in sorted((run / "rollouts").rglob("*.jsonl")):
        events = [json.loads(line) for line in file.read_text().splitlines()]
        if any(e["kind"] == "abandon" and e["author"] == "agent" for e in events):
            return file.stem
    raise AssertionError("the search has no agent-authored abandon")


def tamper(run: Path, spare: set[str]) -> str:
    """Edit one stored event's content without fixing its hash (what a hand edit does)."""
    file = next(f for f in sorted((run / "rollouts").rglob("*.jsonl")) if f.stem not in spare)
    lines = file.read_text().splitlines()
    event = json.loads(lines[2])
    event["data"]["content"] = str(event["data"].get("content", "")) + " (edited)"
    lines[2] = json.dumps(event)
    file.write_text("\n".join(lines) + "\n")
    return file.stem


def script_trajectory(run: Path, turns: int = 3) -> str:
    """A genuine hash-chained trajectory whose messages and tool output contain HTML/script text."""
    traj = Trajectory()
    traj.append("start", "harness", 0, task_id="toy-script", harness_hash="0" * 16, model="sim/baseline", seed=0)
    traj.append("message", "user", 0, role="task", content=f"Please echo {SCRIPT}")
    for step in range(1, turns + 1):
        traj.append("tool_call", "agent", step, name="echo", arguments={"text": SCRIPT}, id=f"c{step}")
        traj.append("tool_result", "environment", step, id=f"c{step}", name="echo", content=SCRIPT, error=False)
        traj.append("message", "agent", step, role="agent", content=f"turn {step}: {SCRIPT}")
    traj.append("end", "harness", turns, reward=1.0, status="ok", reason="final_message")
    traj.save(run / "rollouts" / SCRIPT_KEY[:2] / f"{SCRIPT_KEY}.jsonl")
    return SCRIPT_KEY


def make_heldout_compare(runs: Path, name: str = "demo") -> Path:
    """A retail search (R0 + 1 x 2, greedy) and its default held-out compare (`<run>/compare`), both
    simulated, through the CLI as a user runs them; returns the run folder."""
    import os

    from typer.testing import CliRunner

    from harnessx.cli.main import app

    config = SearchConfig.of(objective="joint", env="retail", rounds=1, proposals=2, runs_dir=str(runs), name=name,
                          tracking_uri=None, concurrency=4, accept="greedy", proposer="rules")
    asyncio.run(Search(config).run())
    here = os.getcwd()
    os.chdir(runs.parent)  # the compare's shared rollout cache sits next to the run, as from a user's folder
    try:
        out = CliRunner().invoke(app, ["compare", str(runs / name), "--concurrency", "4"])
    finally:
        os.chdir(here)
    assert out.exit_code == 0, out.output
    return runs / name
