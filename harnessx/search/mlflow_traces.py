"""Rollouts as MLflow 3 traces: one trace per rollout, a span per model call and per tool call, the
rollout's identity as tags and its scores as assessments, linked to the candidate's MLflow run.

A candidate's traces are logged in one batch after its evaluation, only when MLflow tracking is on,
and at most `limit` per candidate (failed rollouts first, one per failure mode, then the rest, then
successes), so tracing never adds a model call and costs a bounded number of writes. Trajectory
times are relative to the rollout's start; a trace is placed so that it ends when it is logged.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from harnessx.agent.result import RolloutResult
from harnessx.evaluation import Evaluation
from harnessx.scoring import TaskScore
from harnessx.trajectory import Trajectory

DEFAULT_TRACES = 10
TEXT = 2000  # characters of a message, tool argument or tool result kept in a span
SCORED = ("success", "strict_sa", "relaxed_sa", "solved", "false_abstention", "valid")  # trace tags
ASSESSED = ("success", "strict_sa", "solved", "false_abstention")  # also assessments (one write each)


@dataclass(frozen=True)
class TraceContext:
    """Where a candidate's traces go."""

    tracking_uri: str
    experiment_id: str
    run_id: str
    harness_hash: str
    round: int
    slot: int


@dataclass(frozen=True)
class RolloutBatch:
    """The rollouts of one candidate to trace, and how to read their trajectories."""

    rollouts: list[tuple[TaskScore, RolloutResult]]
    trajectory: Callable[[RolloutResult], Trajectory]


def pick(evaluation: Evaluation, limit: int) -> list[tuple[TaskScore, RolloutResult]]:
    """Up to `limit` rollouts (all when negative): failed and excluded ones first, one per failure mode
    before the rest, then successes; a stable order so a re-logged candidate picks the same ones."""
    pairs = sorted(zip(evaluation.scores, evaluation.results), key=lambda p: (p[0].task_id, p[0].seed))
    bad = [p for p in pairs if not p[0].success]
    firsts: dict[str | None, tuple] = {}
    for p in bad:
        firsts.setdefault(p[0].failure_mode or p[0].exclusion, p)
    ordered = [*firsts.values(), *[p for p in bad if p not in firsts.values()], *[p for p in pairs if p[0].success]]
    return ordered if limit < 0 else ordered[:limit]


def _cut(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= TEXT else text[:TEXT] + "...(cut)"


@contextlib.contextmanager
def _tracking(uri: str) -> Iterator[None]:
    """MLflow's tracer exports to the process's tracking URI: point it at the search's store while a
    batch is logged, then back."""
    import mlflow

    before = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(uri)
    try:
        yield
    finally:
        mlflow.flush_trace_async_logging(terminate=False)
        mlflow.set_tracking_uri(before)


def log_traces(ctx: TraceContext, batch: RolloutBatch) -> list[str]:
    """Log each rollout as a trace of the candidate's run; returns the trace ids."""
    rollouts, trajectory = batch.rollouts, batch.trajectory
    if not rollouts:
        return []
    import mlflow
    from mlflow import MlflowClient

    ids = []
    with _tracking(ctx.tracking_uri):
        client = MlflowClient()
        for score, result in rollouts:
            ids.append(_one(client, ctx, score, result, trajectory(result)))
        mlflow.flush_trace_async_logging(terminate=False)
        for trace_id, (score, _) in zip(ids, rollouts):
            _assess(trace_id, score)
    return ids


def _one(client, ctx: TraceContext, score: TaskScore, result: RolloutResult, traj: Trajectory) -> str:
    from mlflow.entities import SpanType

    events = list(traj)
    duration = max([result.duration_s, *(e.t for e in events)])
    t0 = time.time_ns() - int(duration * 1e9)
    at = lambda t: t0 + int(max(t, 0.0) * 1e9)
    task = next((e.data for e in events if e.kind == "message" and e.author == "user"), {})
    tags = {"harnessx.task": score.task_id, "harnessx.seed": str(score.seed), "harnessx.hash": ctx.harness_hash,
            "harnessx.rollout": result.key, "harnessx.round": str(ctx.round), "harnessx.slot": str(ctx.slot),
            "harnessx.family": score.family or ("feasible" if score.feasible else "blocked"),
            "harnessx.status": result.status, "harnessx.failure_mode": score.failure_mode or "",
            **{f"harnessx.{k}": str(_score(score, k)).lower() for k in SCORED}}
    root = client.start_trace(f"rollout {score.task_id} seed {score.seed}", span_type=SpanType.AGENT,
                              inputs={"task": _cut(task.get("content", ""))}, experiment_id=ctx.experiment_id,
                              attributes={"task_id": score.task_id, "seed": score.seed, "harness_hash": ctx.harness_hash,
                                          "rollout_key": result.key, "model": result.model},
                              tags=tags, start_time_ns=t0, run_id=ctx.run_id)
    trace_id, parent = root.trace_id, root.span_id
    pending: dict[str, tuple] = {}
    for i, e in enumerate(events):
        d = e.data
        if e.kind == "model_call":
            start = at(e.t - float(d.get("latency_s") or 0.0))
            span = client.start_span(f"model call {e.step}", trace_id, parent, span_type=SpanType.CHAT_MODEL,
                                     inputs={"step": e.step}, start_time_ns=start,
                                     attributes={k: d.get(k) for k in ("model", "prompt_tokens", "completion_tokens",
                                                                       "cost_usd", "latency_s", "retries")
                                                 if d.get(k) is not None})
            client.end_span(trace_id, span.span_id, outputs=_reply(events[i + 1:]), end_time_ns=max(at(e.t), start))
        elif e.kind == "tool_call":
            span = client.start_span(f"tool {d.get('name')}", trace_id, parent, span_type=SpanType.TOOL,
                                     inputs={"arguments": _cut(d.get("arguments"))}, start_time_ns=at(e.t),
                                     attributes={"tool": d.get("name"), "step": e.step})
            pending[str(d.get("id"))] = (span, at(e.t))
        elif e.kind == "tool_result" and str(d.get("id")) in pending:
            span, start = pending.pop(str(d.get("id")))
            client.end_span(trace_id, span.span_id, outputs={"content": _cut(d.get("content"))},
                            status="ERROR" if d.get("error") else "OK", end_time_ns=max(at(e.t), start))
    for span, start in pending.values():  # a call the episode ended before answering
        client.end_span(trace_id, span.span_id, status="ERROR", end_time_ns=start)
    reply = next((e.data.get("content") for e in reversed(events) if e.kind == "message" and e.author == "agent"), "")
    client.end_trace(trace_id, outputs={"final_message": _cut(reply or ""), "status": result.status,
                                        "stop_reason": result.stop_reason},
                     status="OK" if result.valid else "ERROR", end_time_ns=t0 + int(duration * 1e9))
    return trace_id


def _reply(after: list) -> dict:
    """What the model answered: the agent's message and tool calls up to the next model call."""
    out: dict = {"content": "", "tool_calls": []}
    for e in after:
        if e.kind == "model_call":
            break
        if e.kind == "message" and e.author == "agent":
            out["content"] = _cut(e.data.get("content") or "")
        elif e.kind == "tool_call":
            out["tool_calls"].append({"name": e.data.get("name"), "arguments": _cut(e.data.get("arguments"))})
    return out


def _score(score: TaskScore, key: str) -> bool | None:
    return score.success if key == "success" else getattr(score, key)


def _assess(trace_id: str, score: TaskScore) -> None:
    """The rollout's scores as feedback assessments from HarnessX's scorer (code, not a judge)."""
    import mlflow
    from mlflow.entities import AssessmentSource

    source = AssessmentSource(source_type="CODE", source_id="harnessx.scoring")
    for key in ASSESSED:
        value = _score(score, key)
        if value is None:
            continue
        rationale = score.failure_mode or score.exclusion or "" if key == "success" else None
        mlflow.log_feedback(trace_id=trace_id, name=key, value=bool(value), source=source, rationale=rationale or None)
