"""The simulated agent's answers to the two probes, driven by `probes.yaml`:

- `belief_move`: the read-only feasibility report (role `belief`): one line `P(feasible) = p`;
- `challenge_move`: the reaction to a neutral reconsideration request after the run.

Both draw from the episode's own decision (same harness text, task and seed) and one extra seeded
uniform, so they are deterministic per episode like every other move.
"""

from __future__ import annotations

import json
import math
import random
import re
from functools import lru_cache
from pathlib import Path
from statistics import NormalDist

import yaml

import harnessx.sim.speech as speech
from harnessx.sim.conversation import _assistant_calls
from harnessx.sim.moves import Context, Move, abstain, evidence_seen_after, why

PROBE_FILE = Path(__file__).parent / "probes.yaml"


@lru_cache(maxsize=1)
def probe_table() -> dict:
    return yaml.safe_load(PROBE_FILE.read_text(encoding="utf-8"))


def _uniforms(ctx: Context, salt: str, n: int) -> list[float]:
    rng = random.Random(f"{ctx.decision.seed}:{salt}")
    return [rng.random() for _ in range(n)]


def belief_move(ctx: Context) -> Move:
    table, d, side = probe_table()["belief"], ctx.decision, ctx.side
    u_fail, u_noise = _uniforms(ctx, "belief", 2)
    if u_fail < table["parse_failure"]:
        return Move("Hard to say before trying; it depends on what the tools return.")
    if side["feasible"]:
        centre = table["feasible_abstainer"] if d.false_abstain else table["feasible"]
    elif d.recognize:
        centre = table["blocked_recognized"][(side.get("evidence") or {}).get("where", "observation")]
    else:
        centre = table["blocked_missed"]
    noise = NormalDist(0.0, table["noise_sd"]).inv_cdf(min(max(u_noise, 1e-9), 1 - 1e-9))
    p = 1 / (1 + math.exp(-(math.log(centre / (1 - centre)) + noise)))
    doubt = centre < 0.5
    rationale = f"I suspect a blocker: {why(ctx, d.correct)}." if doubt else "The request looks doable with these tools."
    return Move(f"P(feasible) = {p:.2f}\n{rationale}")


def challenge_index(messages: list[dict]) -> int | None:
    """Index of the reconsideration request among the messages (never the task itself)."""
    patterns = [re.compile(p, re.IGNORECASE) for p in probe_table()["challenge"]["patterns"]]
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    return next((i for i in reversed(users[1:]) if any(p.search(str(messages[i].get("content") or ""))
                                                       for p in patterns)), None)


def _certified(ctx: Context, messages: list[dict]) -> bool:
    """Whether these messages hold the harness's certified deferral (tool call, file write, STOP)."""
    mech = ctx.mechanism
    for m in messages:
        if m.get("role") != "assistant":
            continue
        if mech.mode == "stop" and str(m.get("content") or "").lstrip().startswith(mech.target):
            return True
        for name, args in _assistant_calls(m):
            if (mech.mode == "tool" and name == mech.target) or (mech.mode == "file" and mech.target in json.dumps(args)):
                return True
    return False


def challenge_move(ctx: Context, messages: list[dict], at: int) -> Move:
    table, d = probe_table()["challenge"], ctx.decision
    (u,) = _uniforms(ctx, "challenge", 1)
    answered = any(m.get("role") == "assistant" for m in messages[at + 1:])
    if _certified(ctx, messages[:at]):
        if u < table["retract"]:
            return _resume_writes(ctx, messages[at + 1:], "" if answered else table["withdraw"])
        return Move(table["stand"])
    if answered:
        return Move(table["stand"])
    if ctx.side["feasible"]:
        if u < table["new_false_abstention"]:
            reason_text = why(ctx, False)
            return abstain(ctx, reason_text, True, speech.recognition(ctx.side, reason_text))
        return Move(table["stand"])
    if d.recognize and evidence_seen_after(ctx) is not None and u < table["repair"]:
        reason_text = why(ctx, d.correct)
        return abstain(ctx, reason_text, True, speech.recognition(ctx.side, reason_text))
    return Move(table["stand"])


def _resume_writes(ctx: Context, since: list[dict], text: str) -> Move:
    """A withdrawn deferral: the plan's state-changing steps, one per turn, then a success claim."""
    done = sum(len(_assistant_calls(m)) for m in since if m.get("role") == "assistant")
    writes = ctx.plan.writes
    return Move(text, ctx.plan.steps[writes[done]]) if done < len(writes) else Move(speech.SUCCESS)
