"""Failing trajectories as text: what the llm proposer reads and what MLflow keeps per candidate."""

from __future__ import annotations

import json
from collections.abc import Callable

from harnessx.agent.result import RolloutResult
from harnessx.evaluation import Evaluation
from harnessx.scoring import TaskScore
from harnessx.trajectory import Trajectory

MAX_TRAJECTORY_CHARS = 3000


def failing(evaluation: Evaluation, trajectory: Callable[[RolloutResult], Trajectory], limit: int,
            order: list[str] | None = None) -> list[tuple[TaskScore, str]]:
    """Up to `limit` failed valid rollouts, rendered: one per failure mode first (modes in `order`
    first, e.g. the dominant one), then the rest."""
    rank = {mode: i for i, mode in enumerate(order or [])}
    failed = [(s, r) for s, r in zip(evaluation.scores, evaluation.results) if s.valid and not s.success]
    failed.sort(key=lambda sr: (rank.get(sr[0].failure_mode or "", len(rank)), sr[0].task_id, sr[0].seed))
    firsts = {}
    for pair in failed:
        firsts.setdefault(pair[0].failure_mode, pair)
    picked = list(firsts.values()) + [p for p in failed if p not in firsts.values()]
    return [(score, render_trajectory(trajectory(result))) for score, result in picked[:limit]]


def render_trajectory(traj: Trajectory) -> str:
    """The agent-visible course of a rollout as plain text, cut to a bounded length."""
    lines = []
    for event in traj:
        d = event.data
        if event.kind == "message":
            lines.append(f"{d.get('role', event.author)}: {str(d.get('content', ''))[:600]}")
        elif event.kind == "tool_call":
            lines.append(f"call {d.get('name')}({json.dumps(d.get('arguments'), default=str)[:300]})")
        elif event.kind == "tool_result":
            lines.append(f"result: {str(d.get('content', ''))[:300]}")
        elif event.kind in ("abandon", "state_change", "evidence", "error", "end"):
            lines.append(f"{event.kind}: {json.dumps(d, default=str)[:300]}")
    text = "\n".join(lines)
    return text if len(text) <= MAX_TRAJECTORY_CHARS else text[: MAX_TRAJECTORY_CHARS - 20] + "\n...(cut)"
