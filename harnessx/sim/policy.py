"""The simulated agent's next move, from its episode decision and where the conversation stands.

Blocked task: run the plan until the decisive evidence shows (spec/initial-state evidence: after a
few read-only probes), then act on the decision: certify, abstain in words, leave it to the
harness, or say the task looks blocked and proceed anyway. A trap's premature abstainer defers
before the evidence. An agent that missed the blocker runs the whole plan and ends with a success
claim or a neutral message. Feasible task: run the plan (one step possibly altered), or defer.
"""

from __future__ import annotations

import shlex

import harnessx.sim.speech as speech
from harnessx.sim.decision import rate
from harnessx.sim.moves import (
    Context,
    Move,
    abstain,
    combined_shifts,
    evidence_seen_after,
    why,
)
from harnessx.sim.plan import SHELL, Call, altered, evidence_call, matches


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
        if fixable and d.u_fix < rate(ctx.profile, "fix_on_check", combined_shifts(ctx)):
            return Move("Self-check: one step used a wrong value; redoing it.", ctx.plan.steps[d.wrong_step])
        return None
    certified = d.recognize and d.act and d.certify and not d.delegate
    if certified or d.delegate or evidence_seen_after(ctx) is None:
        return None
    if d.u_repair < rate(ctx.profile, "repair_on_check", combined_shifts(ctx)):
        reason_text = why(ctx, d.correct)
        return abstain(ctx, reason_text, True, speech.recognition(ctx.side, reason_text))
    return None


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
    if not knows and seen and d.u_report < rate(ctx.profile, "report_recognize", combined_shifts(ctx)):
        knows = True
    named = speech.recognition(side, why(ctx, d.correct)) if knows else None
    return Move(speech.report(named, d.fabricate))
