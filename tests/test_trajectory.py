"""The authenticated trajectory detects edits, insertions and drops."""

import json

import pytest

from harnessx.trajectory import TamperError, Trajectory


def _sample() -> Trajectory:
    t = Trajectory()
    t.append("start", "harness", 0, task_id="t1")
    t.append("tool_call", "agent", 1, name="bash", arguments={"command": "ls"})
    t.append("state_change", "harness", 2, target="infeasible.md", change="created")
    t.append("end", "harness", 2, status="ok", reward=1.0)
    return t


def test_round_trip_verifies(tmp_path):
    t = _sample()
    t.save(tmp_path / "t.jsonl")
    back = Trajectory.load(tmp_path / "t.jsonl")
    back.verify()
    assert [e.hash for e in back] == [e.hash for e in t]


@pytest.mark.parametrize("tamper", ["edit_author", "edit_data", "drop", "swap"])
def test_tampering_is_detected(tamper):
    lines = [json.loads(x) for x in _sample().to_jsonl().splitlines()]
    if tamper == "edit_author":
        lines[2]["author"] = "agent"  # claim the harness-written artifact for the agent
    elif tamper == "edit_data":
        lines[1]["data"]["arguments"]["command"] = "rm -rf /"
    elif tamper == "drop":
        del lines[1]
    else:
        lines[1], lines[2] = lines[2], lines[1]
    forged = Trajectory.from_jsonl("\n".join(json.dumps(x) for x in lines))
    assert not forged.is_authentic()
    with pytest.raises(TamperError):
        forged.verify()
