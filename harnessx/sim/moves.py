"""What a simulated agent's move is and the context it is chosen in, shared by the single-task
policy (`policy.py`) and the multi-turn one (`turns.py`): the move, the context, when the evidence
was seen, the reason given, certified or uncertified abstention, and the cue shifts in force.
"""

from __future__ import annotations

from dataclasses import dataclass

import harnessx.sim.speech as speech
from harnessx.sim.conversation import Conversation
from harnessx.sim.cues import Mechanism
from harnessx.sim.decision import Decision
from harnessx.sim.plan import Call, Plan, matches
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


def combined_shifts(ctx: Context) -> dict[str, float]:
    """The system prompt's cue shifts plus the latest self-check's or report request's."""
    keys = set(ctx.shifts) | set(ctx.late_shifts)
    return {k: ctx.shifts.get(k, 0.0) + ctx.late_shifts.get(k, 0.0) for k in keys}
