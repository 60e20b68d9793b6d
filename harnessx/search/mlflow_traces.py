"""Rollouts as MLflow 3 traces: one trace per rollout, a span per model call and per tool call, the
rollout's identity as tags and its scores as assessments, linked to the candidate's MLflow run.

A candidate's traces are logged in one batch after its evaluation, only when MLflow tracking is on,
and at most `limit` per candidate (failed rollouts first, one per failure mode, then the rest, then
successes), so tracing never adds a model call and costs a bounded number of writes (two per trace,
plus one per assessment). Trajectory times are relative to the rollout's start; a trace is placed so
that it ends when it is logged.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from harnessx.agent.result import RolloutResult
from harnessx.evaluation import Evaluation
from harnessx.scoring import TaskScore
from harnessx.trajectory import Trajectory

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


class _Builder:
    """One trace's spans, built in memory (a private OpenTelemetry tracer that exports nothing) and
    written by `TracingClient` in two calls: the trace's info, then all its spans. MLflow's own
    exporter writes a span per call through the process-wide tracking URI; this writes to the
    search's store and costs two writes per trace."""

    def __init__(self, tracer, name: str, start_ns: int, inputs: dict, attributes: dict):
        from mlflow.entities import LiveSpan, SpanType
        from mlflow.tracing.utils import generate_trace_id_v3

        self.tracer, self.spans = tracer, []
        self._otel_root = tracer.start_span(name, start_time=start_ns)
        self.trace_id = generate_trace_id_v3(self._otel_root)
        self.root = LiveSpan(self._otel_root, self.trace_id, SpanType.AGENT)
        self.root.set_inputs(inputs)
        self.root.set_attributes(attributes)

    def child(self, name: str, span_type: str, start_ns: int, end_ns: int, inputs: dict, outputs: dict,
              attributes: dict, error: bool = False) -> None:
        from mlflow.entities import LiveSpan, SpanStatusCode
        from mlflow.tracing import set_span_chat_tools
        from opentelemetry import trace as otel

        span = LiveSpan(self.tracer.start_span(name, context=otel.set_span_in_context(self._otel_root),
                                               start_time=start_ns), self.trace_id, span_type)
        span.set_inputs(inputs)
        if inputs.get("tools"):  # MLflow's chat view lists a chat span's tools from this attribute
            set_span_chat_tools(span, inputs["tools"])
        span.set_outputs(outputs)
        span.set_attributes({k: v for k, v in attributes.items() if v is not None})
        if error:
            span.set_status(SpanStatusCode.ERROR)
        span.end(end_time_ns=max(end_ns, start_ns))
        self.spans.append(span.to_immutable_span())

    def finish(self, outputs: dict, ok: bool, end_ns: int) -> list:
        from mlflow.entities import SpanStatusCode

        self.root.set_outputs(outputs)
        self.root.set_status(SpanStatusCode.OK if ok else SpanStatusCode.ERROR)
        self.root.end(end_time_ns=end_ns)
        return [self.root.to_immutable_span(), *self.spans]


def log_traces(ctx: TraceContext, batch: RolloutBatch) -> list[str]:
    """Log each rollout as a trace of the candidate's run; returns the trace ids."""
    if not batch.rollouts:
        return []
    from mlflow.exceptions import MlflowException
    from mlflow.tracing.client import TracingClient
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

    client = TracingClient(ctx.tracking_uri)
    tracer = TracerProvider(resource=Resource.create({"service.name": "harnessx"})).get_tracer("harnessx")
    ids = []
    for score, result in batch.rollouts:
        info, spans = _trace(tracer, ctx, score, result, batch.trajectory(result))
        try:
            client.start_trace(info)
            client.log_spans(ctx.experiment_id, spans)
            _assess(client, info.trace_id, score)
        except (NotImplementedError, MlflowException) as exc:  # a store that cannot take spans: the search goes on
            logging.getLogger("harnessx").warning("MLflow at %s did not store trace spans (%s): %d of %d traces "
                                                  "logged for run %s", ctx.tracking_uri, exc, len(ids),
                                                  len(batch.rollouts), ctx.run_id)
            break
        ids.append(info.trace_id)
    return ids


def _trace(tracer, ctx: TraceContext, score: TaskScore, result: RolloutResult, traj: Trajectory):
    from mlflow.entities import SpanType, TraceInfo, TraceLocation, TraceState

    events = list(traj)
    duration = max([result.duration_s, *(e.t for e in events)])
    t0 = time.time_ns() - int(duration * 1e9)
    at = lambda t: t0 + int(max(t, 0.0) * 1e9)
    task = next((e.data for e in events if e.kind == "message" and e.author == "user"), {})
    tags = {"harnessx.task": score.task_id, "harnessx.seed": str(score.seed), "harnessx.hash": ctx.harness_hash,
            "harnessx.rollout": result.key, "harnessx.round": str(ctx.round), "harnessx.slot": str(ctx.slot),
            "harnessx.family": score.family or ("feasible" if score.feasible else "blocked"),
            "harnessx.status": result.status, "harnessx.failure_mode": score.failure_mode or "",
            "harnessx.outcome": outcome(score), "harnessx.harness": ctx.harness_hash,
            "mlflow.traceName": f"{score.task_id} seed {score.seed} harness {ctx.harness_hash[:8]} r{ctx.round}.{ctx.slot}",
            **{f"harnessx.{k}": str(_score(score, k)).lower() for k in SCORED}}
    trace = _Builder(tracer, f"rollout {score.task_id} seed {score.seed}", t0,
                     {"harness": ctx.harness_hash, "task_id": score.task_id, "seed": score.seed,
                      "task": _cut(task.get("content", ""))},
                     {"task_id": score.task_id, "seed": score.seed, "harness_hash": ctx.harness_hash,
                      "rollout_key": result.key, "model": result.model})
    calls: dict[str, tuple] = {}
    schemas = {t["function"]["name"]: t for e in events if e.kind == "tools" for t in e.data.get("tools", [])}
    for i, e in enumerate(events):
        d = e.data
        if e.kind == "model_call":
            sent = {"messages": _sent(events[:i]), "tools": [schemas[n] for n in d.get("tools") or () if n in schemas]}
            trace.child(f"model call {e.step} ({d.get('role', 'agent')})", SpanType.CHAT_MODEL,
                        at(e.t - float(d.get("latency_s") or 0.0)), at(e.t),
                        {k: v for k, v in sent.items() if v}, _reply(events[i + 1:]),
                        {"step": e.step, **{k: d.get(k) for k in ("role", "model", "prompt_tokens", "completion_tokens",
                                                                   "cost_usd", "latency_s", "retries")}})
        elif e.kind == "tool_call":
            calls[str(d.get("id"))] = (e, d)
        elif e.kind == "tool_result" and str(d.get("id")) in calls:
            call, args = calls.pop(str(d.get("id")))
            trace.child(f"tool {args.get('name')}", SpanType.TOOL, at(call.t), at(e.t),
                        {"arguments": _cut(args.get("arguments"))}, {"content": _cut(d.get("content"))},
                        {"tool": args.get("name"), "step": call.step}, error=bool(d.get("error")))
    for call, args in calls.values():  # a call the episode ended before answering
        trace.child(f"tool {args.get('name')}", SpanType.TOOL, at(call.t), at(call.t),
                    {"arguments": _cut(args.get("arguments"))}, {"content": "(no result)"},
                    {"tool": args.get("name"), "step": call.step}, error=True)
    reply = next((e.data.get("content") for e in reversed(events) if e.kind == "message" and e.author == "agent"), "")
    end = t0 + int(duration * 1e9)
    passed = outcome(score) == "pass"
    spans = trace.finish({"outcome": outcome(score), "final_message": _cut(reply or ""), "status": result.status,
                          "stop_reason": result.stop_reason, "failure_mode": score.failure_mode,
                          "exclusion": score.exclusion}, passed, end)
    info = TraceInfo(trace_id=trace.trace_id, trace_location=TraceLocation.from_experiment_id(ctx.experiment_id),
                     request_time=t0 // 1_000_000, execution_duration=(end - t0) // 1_000_000,
                     state=TraceState.OK if passed else TraceState.ERROR,  # a failed or excluded rollout is no OK
                     trace_metadata={"mlflow.sourceRun": ctx.run_id}, tags=tags)
    return info, spans


def outcome(score: TaskScore) -> str:
    """pass / fail / excluded: the gate that decides the task's stratum (solve when feasible, strict SA
    when blocked), as the viewer's pages say it."""
    if not score.valid:
        return "excluded"
    return "pass" if (score.solved if score.feasible else score.strict_sa) else "fail"


def _sent(before: list) -> list[dict]:
    """What the harness sent the model at a call: every message so far in chat form (the system prompt,
    the task, messages the harness injected such as a self-check, the agent's earlier replies with
    their tool calls, and the tool results), each cut to TEXT characters. The tool schemas offered
    are the `tools` event's, named by the call's record."""
    out: list[dict] = []
    for e in before:
        d = e.data
        if e.kind == "message":
            role = {"agent": "assistant", "harness": "system" if d.get("role") == "system" else "user"}.get(e.author, "user")
            if role == "system":  # a system prompt opens a conversation (a planner-executor's executor starts afresh)
                out = []
            out.append({"role": role, "author": e.author, "content": _cut(d.get("content") or "")})
        elif e.kind == "tool_call":
            if not out or out[-1]["role"] != "assistant":
                out.append({"role": "assistant", "author": "agent", "content": ""})
            out[-1].setdefault("tool_calls", []).append(_call(d))
        elif e.kind == "tool_result":
            out.append({"role": "tool", "author": "environment", "tool_call_id": str(d.get("id")), "name": d.get("name"),
                        "content": _cut(d.get("content"))})
    return out


def _reply(after: list) -> dict:
    """What the model answered: the agent's message and tool calls up to the next model call."""
    out: dict = {"content": "", "tool_calls": []}
    for e in after:
        if e.kind == "model_call":
            break
        if e.kind == "message" and e.author == "agent":
            out["content"] = _cut(e.data.get("content") or "")
        elif e.kind == "tool_call":
            out["tool_calls"].append(_call(e.data))
    return out


def _call(d: dict) -> dict:
    """A recorded tool call in the chat API's form, as MLflow's chat view reads it."""
    return {"id": str(d.get("id")), "type": "function",
            "function": {"name": d.get("name"), "arguments": _cut(json.dumps(d.get("arguments"), default=str))}}


def _score(score: TaskScore, key: str) -> bool | None:
    return score.success if key == "success" else getattr(score, key)


def _assess(client, trace_id: str, score: TaskScore) -> None:
    """The rollout's scores as feedback assessments from HarnessX's scorer (code, not a judge)."""
    from mlflow.entities import AssessmentSource, Feedback

    source = AssessmentSource(source_type="CODE", source_id="harnessx.scoring")
    for key in ASSESSED:
        value = _score(score, key)
        if value is None:
            continue
        rationale = score.failure_mode or score.exclusion or "" if key == "success" else None
        client.log_assessment(trace_id, Feedback(name=key, value=bool(value), source=source, trace_id=trace_id,
                                                 rationale=rationale or None))
