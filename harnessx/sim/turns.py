"""The simulated agent on a multi-turn task (side channel `reference.turns`, e.g. BFCL).

Each user turn has its own slice of the gold plan; the agent runs the current turn's slice and
then answers in words, which ends the turn. On a blocked task the decisive evidence is a turn
(`evidence.turn`): there the episode decision plays out — certify a deferral (or abstain in words)
and call nothing, or, having missed the blocker or proceeding anyway, make the call the next turn
asks for (a guessed parameter, the withheld function). The turns before and after are worked as on
a feasible task; a deferral does not end the episode.
"""

from __future__ import annotations

import harnessx.sim.parallel as parallel
import harnessx.sim.speech as speech
from harnessx.sim.decision import rate
from harnessx.sim.moves import Context, Move, abstain, combined_shifts, why
from harnessx.sim.plan import Call, altered


def turn_index(ctx: Context) -> int:
    return len(ctx.conv.turn_starts)


def turn_steps(ctx: Context, turn: int) -> list[Call]:
    counts = ctx.side["reference"]["turns"]
    if turn >= len(counts):
        return []
    start = sum(counts[:turn])
    return list(ctx.plan.steps[start: start + counts[turn]])


def _this_turn(ctx: Context) -> tuple[list[Call], bool]:
    """The agent's calls in the current turn (deferral excluded) and whether it deferred in it."""
    start = ctx.conv.turn_starts[-1] if ctx.conv.turn_starts else 0
    calls = ctx.conv.calls[start:]
    target = ctx.mechanism.target if ctx.mechanism.mode == "tool" else None
    return [c for c in calls if c[0] != target], any(c[0] == target for c in calls)


def _work(ctx: Context, steps: list[Call], done: list[Call], final: str, said: str = "", slip_at: int = -1) -> Move:
    k = len(done)
    if k < len(steps):
        # parallel tool calls: the turn's next independent calls in one reply (native tools only)
        enabled = ctx.profile.parallel_calls and bool(ctx.tools)
        shown = "\n".join(ctx.conv.shown) if enabled else ""
        calls = [altered(s, ctx.decision.u_slip) if k + i == slip_at else s
                 for i, s in enumerate(parallel.batch(steps[k:], shown, enabled))]
        return Move(said if k == 0 else "", calls[0], tuple(calls[1:]))
    return Move(final)


def _feasible(ctx: Context, turn: int, done: list[Call], deferred: bool) -> Move:
    d = ctx.decision
    if d.false_abstain:  # defers at the first turn and then stops working
        reason = why(ctx, False)
        statement = speech.recognition(ctx.side, reason)
        if turn == 0 and not deferred and not ctx.conv.finals:
            return abstain(ctx, reason, True, statement)
        return Move(statement)
    offset = sum(ctx.side["reference"]["turns"][:turn])
    slip = d.wrong_step - offset if d.wrong_step >= offset else -1
    return _work(ctx, turn_steps(ctx, turn), done, ctx.side["reference"].get("final_answer") or speech.SUCCESS,
                 slip_at=slip)


def _blocked(ctx: Context, turn: int, done: list[Call], deferred: bool) -> Move:
    d, blocked_at = ctx.decision, ctx.side["evidence"]["turn"]
    plain = speech.SUCCESS if d.fabricate else speech.NEUTRAL
    if turn != blocked_at:
        return _work(ctx, turn_steps(ctx, turn), done, plain)
    guessed = turn_steps(ctx, turn + 1)  # what proceeding at the blocked turn does: the next turn's calls
    reason = why(ctx, d.correct)
    statement = speech.recognition(ctx.side, reason)
    if not d.recognize:
        return _work(ctx, guessed, done, plain)
    if not d.act:
        return _work(ctx, guessed, done, plain, said=speech.proceeding(ctx.side, reason))
    if d.delegate:
        return Move(speech.delegating(ctx.side, reason))
    if deferred or done:
        return Move(statement)
    return abstain(ctx, reason, d.certify, statement)


def _after_check(ctx: Context, turn: int, deferred: bool) -> Move | None:
    """A self-check may make an agent that saw the blocker but did not certify certify it now."""
    d = ctx.decision
    if ctx.side["feasible"] or turn != ctx.side["evidence"]["turn"] or deferred:
        return None
    if d.recognize and d.act and d.certify and not d.delegate:
        return None
    if d.u_repair < rate(ctx.profile, "repair_on_check", combined_shifts(ctx)):
        reason = why(ctx, d.correct)
        return abstain(ctx, reason, True, speech.recognition(ctx.side, reason))
    return None


def turn_move(ctx: Context) -> Move:
    turn = turn_index(ctx)
    done, deferred = _this_turn(ctx)
    if ctx.conv.last == "check":
        move = _after_check(ctx, turn, deferred)
        if move is not None:
            return move
    return (_feasible if ctx.side["feasible"] else _blocked)(ctx, turn, done, deferred)
