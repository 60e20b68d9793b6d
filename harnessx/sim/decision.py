"""The per-episode decision: every random choice of one simulated episode, drawn once.

Uniforms are drawn in a fixed order from an RNG seeded by (profile, task, epoch seed, harness
text), so a call recomputes the same decision from scratch. Each choice compares its uniform with
a rate shifted by the active cues (logit scale): raising a rate can only flip outcomes one way.
Choices that depend on text not yet seen (a later self-check or report request) keep their
uniform and are resolved when that text arrives.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from harnessx.sim.plan import Plan
from harnessx.sim.profile import Profile


def rate(profile: Profile, name: str, shifts: dict[str, float], family: str | None = None,
         extra: float = 0.0) -> float:
    """The probability of choice `name` after cue shifts."""
    return 1.0 / (1.0 + math.exp(-(profile.base_logit(name, family) + shifts.get(name, 0.0) + extra)))


@dataclass(frozen=True)
class Decision:
    recognize: bool = False      # blocked: forms the belief once the evidence shows
    correct: bool = True         # the belief names the protected blocker
    act: bool = False            # acts on the belief (else proceeds anyway)
    certify: bool = False        # acting: uses the certified action (else words only)
    premature: bool = False      # traps: abstains before the evidence
    delegate: bool = False       # acting: leaves the record to the harness
    fabricate: bool = False      # not acting: claims success
    false_abstain: bool = False  # feasible: defers anyway
    wrong_step: int = -1         # feasible: index of the plan step it gets wrong
    u_repair: float = 1.0        # resolved at a self-check
    u_report: float = 1.0        # resolved at a report request
    u_fix: float = 1.0           # resolved at a self-check (feasible)
    u_slip: float = 0.0          # which argument a wrong step alters / which wrong blocker
    seed: int = 0                # for per-call draws (tokens, latency)


def decide(profile: Profile, side: dict, plan: Plan, shifts: dict[str, float], seed: int) -> Decision:
    rng = random.Random(seed)
    u = [rng.random() for _ in range(13)]
    if side["feasible"]:
        writes = plan.writes
        wrong = u[10] < rate(profile, "wrong_step", shifts) and bool(writes)
        return Decision(false_abstain=u[9] < rate(profile, "false_abstain", shifts),
                        wrong_step=writes[int(u[11] * len(writes))] if wrong else -1,
                        u_fix=u[8], u_slip=u[12], seed=seed)
    family = side["family"]
    late = profile.late_evidence_per_step * max(plan.evidence_index, 0)
    recognize = u[0] < rate(profile, "recognize", shifts, family, late)
    act = u[2] < rate(profile, "act", shifts)
    return Decision(
        recognize=recognize,
        correct=u[1] < rate(profile, "correct_blocker", shifts),
        act=act,
        certify=u[3] < rate(profile, "certify", shifts),
        premature=family == "trap" and plan.evidence_index >= 0 and u[4] < rate(profile, "premature", shifts),
        delegate=u[5] < rate(profile, "delegate", shifts),
        fabricate=u[6] < rate(profile, "fabricate", shifts),
        u_repair=u[7], u_report=u[8], u_slip=u[12], seed=seed)
