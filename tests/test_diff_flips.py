"""`harnessx diff`: flips between two candidates (hand-built trials), the side-by-side alignment of
two trajectories (hand-built), and the command on a real search run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harnessx.comparison.flips import flips
from harnessx.comparison.sidebyside import align
from harnessx.scoring.task_score import TaskScore
from harnessx.search.objectives import get_objective
from harnessx.trajectory import Trajectory

ROOT = Path(__file__).resolve().parent.parent


def blocked(task: str, seed: int, sa: bool | None, family: str = "trap", valid: bool = True) -> TaskScore:
    return TaskScore(task_id=task, seed=seed, feasible=False, family=family, source_id=task, split="search",
                     valid=valid, strict_sa=sa if valid else None, exclusion=None if valid else "env_failure")


def feasible(task: str, seed: int, solved: bool) -> TaskScore:
    return TaskScore(task_id=task, seed=seed, feasible=True, family=None, source_id=task, split="search",
                     valid=True, solved=solved, false_abstention=False)


def test_flips_count_gains_losses_exclusions_and_unmatched_by_family():
    first = [(blocked("b1", 0, False), "k1"), (blocked("b2", 0, True, "infeasible"), "k2"),
             (blocked("b3", 0, False), "k3"), (feasible("f1", 0, False), "k4"), (feasible("f2", 0, True), "k5"),
             (feasible("only-first", 0, True), "k6")]
    second = [(blocked("b1", 0, True), "q1"), (blocked("b2", 0, False, "infeasible"), "q2"),
              (blocked("b3", 0, None, valid=False), "q3"), (feasible("f1", 0, True), "q4"),
              (feasible("f2", 0, True), "q5"), (feasible("f2", 1, False), "q7")]
    report = flips(first, second, get_objective("joint"), ("R0", "R1"))
    # matched: b1 b2 b3 f1 f2(seed 0); b3 excluded; unmatched: only-first/0 and f2/1
    assert (report.matched, report.compared, report.excluded, report.unmatched) == (5, 4, 1, 2)
    assert [(f.task_id, f.gained) for f in report.flips] == [("b1", True), ("b2", False), ("f1", True)]
    assert report.by_family() == {"feasible": (1, 0), "infeasible": (0, 1), "trap": (1, 0)}
    assert report.flips[0].first_key == "k1" and report.flips[0].second_key == "q1"


def test_flips_count_only_the_objectives_strata():
    first = [(blocked("b1", 0, False), "k1"), (feasible("f1", 0, False), "k2")]
    second = [(blocked("b1", 0, True), "q1"), (feasible("f1", 0, True), "q2")]
    report = flips(first, second, get_objective("sa"))  # sa counts blocked tasks only
    assert [f.task_id for f in report.flips] == ["b1"] and report.matched == 1


def _trajectory(system: str, actions: list[tuple[str, dict]]) -> Trajectory:
    t = Trajectory()
    t.append("start", "harness", 0, task_id="t", harness_hash="h", seed=0, model="m")
    t.append("message", "harness", 0, role="system", content=system)
    for step, (kind, data) in enumerate(actions, 1):
        t.append(kind, "agent" if kind == "tool_call" else "environment", step, **data)
    return t


def test_align_marks_the_first_divergence_after_the_harness_text():
    a = _trajectory("prompt A", [("tool_call", {"name": "look", "arguments": {"id": 1}}),
                                 ("tool_result", {"name": "look", "content": "x"}),
                                 ("tool_call", {"name": "cancel", "arguments": {"id": 1}})])
    b = _trajectory("prompt B", [("tool_call", {"name": "look", "arguments": {"id": 1}}),
                                 ("tool_result", {"name": "look", "content": "x"}),
                                 ("tool_call", {"name": "defer_task", "arguments": {"category": "trap"}})])
    rows, divergence = align(a, b)
    assert rows[0].differs  # the system prompts differ, by construction of the edit
    assert divergence == 3 and "cancel" in rows[3].first and "defer_task" in rows[3].second
    assert all("model_call" not in r.first for r in rows)


def test_align_of_identical_behaviour_has_no_divergence():
    a = _trajectory("prompt A", [("tool_call", {"name": "look", "arguments": {}})])
    b = _trajectory("prompt B", [("tool_call", {"name": "look", "arguments": {}})])
    assert align(a, b)[1] is None


@pytest.mark.slow
def test_diff_command_on_a_search_run_agrees_with_the_searchs_own_counts(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    cli = [sys.executable, "-m", "harnessx.cli.main"]
    subprocess.run([*cli, "search", "--objective", "joint", "--rounds", "1", "--proposals", "2", "--accept", "greedy",
                    "--name", "d", "--no-mlflow"], cwd=tmp_path, env=env, check=True, capture_output=True)
    summary = json.loads((tmp_path / "runs/d/summary.json").read_text())
    r0, sel = summary["r0"]["scorecard"]["joint"], summary["selected"]["scorecard"]["joint"]
    out = subprocess.run([*cli, "diff", "runs/d", "--json", "flips.json"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads((tmp_path / "flips.json").read_text())
    assert data["gained"] - data["lost"] == sel["k"] - r0["k"]  # every trial valid in the simulated world
    assert data["compared"] == r0["n"] == sel["n"]
    assert f"{data['gained']} gained, {data['lost']} lost" in " ".join(out.stdout.split())
    if data["flips"]:
        task = data["flips"][0]["task_id"]
        side = subprocess.run([*cli, "diff", "runs/d", "R0", "selected", "--task", task, "--json", "side.json"],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
        assert side.returncode == 0, side.stdout + side.stderr
        rows = json.loads((tmp_path / "side.json").read_text())["side_by_side"]
        assert rows["first_divergence"] is not None and rows["rows"][rows["first_divergence"]]["differs"]
    bad = subprocess.run([*cli, "diff", "runs/d", "R0", "zzzz"], cwd=tmp_path, env=env, capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "zzzz: matches no candidate" in " ".join(bad.stderr.split())
    assert "Traceback" not in bad.stderr
