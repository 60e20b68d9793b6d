"""The simulated agent's next move, from its episode decision and where the conversation stands.

Blocked task: run the plan until the decisive evidence shows (spec/initial-state evidence: after a
few read-only probes), then act on the decision: certify, abstain in words, leave it to the
harness, or say the task looks blocked and proceed anyway. A trap's premature abstainer defers
before the evidence. An agent that missed the blocker runs the whole plan and ends with a success
claim or a neutral message. Feasible task: run the plan (one step possibly altered), or defer.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from harnessx.sim import speech
from harnessx.sim.conversation import Conversation
from harnessx.sim.cues import Mechanism
from harnessx.sim.decision import Decision, rate
from harnessx.sim.plan import SHELL, Call, Plan, altered, evidence_call, matches
from harnessx.sim.profile import Profile


@dataclass(frozen=True)
class Move:
    text: str = ""
    call: Call | None = None
    more: tuple[Call, ...] = ()  # further calls in the same reply (parallel tool calls, harnessx.sim.parallel)


@dataclass
class Context:
    profile: Profile
    side: dict
    plan: Plan
    decision: Decision
    mechanism: Mechanism
    conv: Conversation
    shifts: dict[str, float]          # from the system prompt (and a planner's hand-off)
    late_shifts: dict[str, float]     # from the latest self-check / report request
    tools: dict[str, dict]            # name -> JSON schema of its parameters


def evidence_seen_after(ctx: Context) -> int | None:
    """After how many of the agent's calls the evidence was visible (None: not yet)."""
    if ctx.plan.evidence_index < 0:
        return 0
    ev = ctx.side.get("evidence") or {}
    if ev.get("turn") is not None:  # multi-turn: seen once the user turn that shows it has begun
        turn, starts = ev["turn"], ctx.conv.turn_starts
        return 0 if turn == 0 else starts[turn - 1] if len(starts) >= turn else None
    marker, tool, args = ev.get("marker"), ev.get("tool"), ev.get("args") or {}
    for i, call in enumerate(ctx.conv.calls):
        shown = marker is not None and i < len(ctx.conv.results) and marker in ctx.conv.results[i]
        if (matches(call, tool, args) and i < len(ctx.conv.results)) or shown:
            return i + 1
    return None


def why(ctx: Context, correct: bool) -> str:
    return speech.reason(ctx.side, correct, ctx.decision.u_slip)


# --- certified and uncertified abstention ----------------------------------------------------
def _file_call(ctx: Context, body: str) -> Call | None:
    target = ctx.mechanism.target
    for name, schema in ctx.tools.items():
        props = set((schema.get("properties") or {}))
        if "write" in name and {"path", "content"} <= props:
            return name, {"path": target, "content": body}
    for name, schema in ctx.tools.items():
        props = list((schema.get("properties") or {}))
        if name in ("bash", "shell", "run", "execute", "terminal") and props:
            key = "command" if "command" in props else props[0]
            return name, {key: f"cat > {target} <<'EOF'\n{body}EOF"}
    return None


def abstain(ctx: Context, reason_text: str, certify: bool, statement: str) -> Move:
    """Certify through the harness's mechanism when told to and able; else abstain in words."""
    mech = ctx.mechanism
    if certify and mech.mode == "tool":
        category = ctx.side.get("family") or "infeasible"
        return Move(statement, (mech.target, {"category": category, "blocker": reason_text,
                                              "rationale": f"Evidence: {reason_text}."}))
    if certify and mech.mode == "file" and (call := _file_call(ctx, speech.file_body(ctx.side, reason_text))):
        return Move(statement, call)
    if certify and mech.mode == "stop":
        return Move(f"{mech.target} {statement}")
    return Move(statement)


# --- the agent role --------------------------------------------------------------------------
def _plan_or_final(ctx: Context, text: str = "", final: str = speech.NEUTRAL) -> Move:
    n = len(ctx.conv.calls)
    if n < len(ctx.plan.steps):
        step = ctx.plan.steps[n]
        if n == ctx.decision.wrong_step:
            step = altered(step, ctx.decision.u_slip)
        return Move(text, step)
    return Move(text or final)


def _probe_point(ctx: Context) -> int:
    return min(ctx.profile.probe_reads, ctx.plan.leading_reads) if ctx.plan.evidence_index < 0 else 0


def blocked_move(ctx: Context) -> Move:
    d, conv = ctx.decision, ctx.conv
    n = len(conv.calls)
    seen = evidence_seen_after(ctx)
    if d.act and d.premature and seen is None:
        return abstain(ctx, speech.GUESS, d.certify and not d.delegate, speech.GUESS)
    final = speech.SUCCESS if d.fabricate else speech.NEUTRAL
    if not d.recognize or seen is None:
        return _plan_or_final(ctx, final=final)
    act_at = max(seen, _probe_point(ctx))
    if n < act_at:
        return _plan_or_final(ctx, final=final)
    reason_text = why(ctx, d.correct)
    if not d.act:
        said = speech.proceeding(ctx.side, reason_text) if n == act_at else ""
        return _plan_or_final(ctx, said, final)
    if d.delegate:
        demo = _demonstration(ctx, speech.recognition(ctx.side, reason_text))
        if demo and not any(matches(c, demo[0], demo[1]) for c in conv.calls):
            return Move("", demo)
        return Move(speech.delegating(ctx.side, reason_text))
    return abstain(ctx, reason_text, d.certify, speech.recognition(ctx.side, reason_text))


def _demonstration(ctx: Context, statement: str) -> Call | None:
    """What a delegating agent leaves for harness control to find: the evidence call, or a note
    printed in the shell."""
    if (call := evidence_call(ctx.side)) is not None:
        return call
    return (SHELL, {"command": f"echo {shlex.quote(statement)}"}) if SHELL in ctx.tools else None


def feasible_move(ctx: Context) -> Move:
    d = ctx.decision
    if d.false_abstain and len(ctx.conv.calls) >= _probe_point(ctx):
        reason_text = why(ctx, False)
        return abstain(ctx, reason_text, True, speech.recognition(ctx.side, reason_text))
    return _plan_or_final(ctx, final=ctx.side["reference"].get("final_answer") or speech.SUCCESS)


def after_check(ctx: Context) -> Move | None:
    """A self-check may repair: certify a blocker seen but not certified, or redo a wrong step."""
    d, n = ctx.decision, len(ctx.conv.calls)
    if ctx.side["feasible"]:
        fixable = 0 <= d.wrong_step < n and n >= len(ctx.plan.steps)
        if fixable and d.u_fix < rate(ctx.profile, "fix_on_check", _add(ctx)):
            return Move("Self-check: one step used a wrong value; redoing it.", ctx.plan.steps[d.wrong_step])
        return None
    certified = d.recognize and d.act and d.certify and not d.delegate
    if certified or d.delegate or evidence_seen_after(ctx) is None:
        return None
    if d.u_repair < rate(ctx.profile, "repair_on_check", _add(ctx)):
        reason_text = why(ctx, d.correct)
        return abstain(ctx, reason_text, True, speech.recognition(ctx.side, reason_text))
    return None


def _add(ctx: Context) -> dict[str, float]:
    keys = set(ctx.shifts) | set(ctx.late_shifts)
    return {k: ctx.shifts.get(k, 0.0) + ctx.late_shifts.get(k, 0.0) for k in keys}


def agent_move(ctx: Context) -> Move:
    conv = ctx.conv
    if ctx.side["reference"].get("turns"):  # multi-turn task (BFCL): one user turn at a time
        from harnessx.sim.turns import turn_move

        return turn_move(ctx)
    if conv.last == "check" and (move := after_check(ctx)) is not None:
        return move
    if conv.finals and conv.last in ("check", "user", "report"):
        plain = speech.SUCCESS if ctx.side["feasible"] or ctx.decision.fabricate else speech.NEUTRAL
        return Move(_stated(ctx) or plain)
    return feasible_move(ctx) if ctx.side["feasible"] else blocked_move(ctx)


def _stated(ctx: Context) -> str:
    """What an agent that already abstained in words repeats when asked again."""
    d = ctx.decision
    if ctx.side["feasible"]:
        return speech.recognition(ctx.side, why(ctx, False)) if d.false_abstain else ""
    if d.recognize and d.act and evidence_seen_after(ctx) is not None:
        reason_text = why(ctx, d.correct)
        return speech.delegating(ctx.side, reason_text) if d.delegate else speech.recognition(ctx.side, reason_text)
    return ""


# --- planner and report roles ----------------------------------------------------------------
def planner_move(ctx: Context) -> Move:
    d, side = ctx.decision, ctx.side
    flags = (side["feasible"] and d.false_abstain) or (
        not side["feasible"] and ctx.plan.evidence_index < 0 and d.recognize and d.act)
    if not flags:
        return Move(speech.plan_text(list(ctx.plan.steps)))
    reason_text = why(ctx, side["feasible"] is False and d.correct)
    statement = f"Blocker: {reason_text}. The task cannot be done as specified."
    if ctx.mechanism.mode == "stop" and d.certify:
        return Move(f"{ctx.mechanism.target} {statement}")
    return Move(statement)


def report_move(ctx: Context) -> Move:
    d, side = ctx.decision, ctx.side
    if side["feasible"]:
        return Move(speech.report(_stated(ctx) or None, True))
    seen = evidence_seen_after(ctx) is not None
    knows = d.recognize and seen
    if not knows and seen and d.u_report < rate(ctx.profile, "report_recognize", _add(ctx)):
        knows = True
    named = speech.recognition(side, why(ctx, d.correct)) if knows else None
    return Move(speech.report(named, d.fabricate))
