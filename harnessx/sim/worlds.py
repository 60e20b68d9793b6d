"""A distribution of simulated worlds: seeded draws of agent profiles for judging search designs.

A search rule tuned on two hand-written worlds overfits them, as any model selected on its test set
does. `draw_world(seed)` samples one world from the distribution below; the bench draws N of them,
chooses a design on one set of draws and reports it on a disjoint set (docs/simulated-agent.md,
"A distribution of worlds"). The two hand-written worlds stay as named members (`baseline`,
`harmful`); `world_model("draw:7")` names draw 7 wherever a `sim/<profile>` is taken.

The distribution (every number here is the documented one; a test checks the draws against it):

- **archetype** of the agent, by weight: typical 0.35, over-defers 0.15, never defers 0.15,
  fabricates 0.10, gives up early 0.10, careless 0.15 -- each a set of logit shifts on the
  baseline's rates (`ARCHETYPES`);
- **base rates**: the baseline's, every rate (and family) shifted on the logit scale by N(0, 0.35),
  then by the archetype's shifts;
- **sensitivity to harness text**: `cue_scale` ~ U(0.6, 1.4);
- **what each clause does**: each searchable cue (`CUES`) with probability 0.5 keeps its table
  effects scaled by U(0, 1.6) each (an edit may do nothing, or more than usual); with probability
  0.3 it also has a side effect that hurts (`SIDE_EFFECTS`: more false abstention, less acting,
  more wrong steps, less recognition or more fabrication, each of a size drawn from its range);
- **interactions**: 0, 1 or 2 pairs of cues (weights 0.3, 0.4, 0.3); a pair is a *synergy* with
  probability 0.5 (both cues do nothing alone -- their effects are set to 0 -- and together they
  pay: certify +U(1, 2) and recognize +U(0.5, 1.2)) or else a *conflict* (together: act -U(0.4, 1)
  and false_abstain +U(0.8, 2)).
"""

from __future__ import annotations

import math
import random
import re

from harnessx.sim.cues import cue_table
from harnessx.sim.profile import Profile, load_profile, register_profile

DRAW = re.compile(r"draw:(\d+)")
RATE_SD = 0.35
ARCHETYPES: dict[str, tuple[float, dict[str, float]]] = {
    "typical": (0.35, {}),
    "over-defers": (0.15, {"false_abstain": 2.2, "premature": 0.8, "recognize": 0.4}),
    "never-defers": (0.15, {"act": -1.6, "recognize": -0.6, "fabricate": 0.8}),
    "fabricates": (0.10, {"fabricate": 1.6, "certify": -0.6}),
    "gives-up-early": (0.10, {"premature": 1.5, "false_abstain": 1.2}),
    "careless": (0.15, {"wrong_step": 0.8, "fix_on_check": -0.5}),
}
# the cues the default search space's clauses and switches reach (roles and delegation excluded)
CUES = ("abandon_protocol", "name_the_blocker", "verify_prerequisites", "wait_for_evidence", "no_fabrication",
        "feasible_guard", "few_shot", "careful_execution", "check_abandon", "check_repair", "report_blocker")
KEEP_P, SIDE_P, SCALE = 0.5, 0.3, (0.0, 1.6)
SIDE_EFFECTS = {"false_abstain": (0.8, 2.5), "act": (-1.2, -0.4), "wrong_step": (0.2, 0.7),
                "recognize": (-0.8, -0.3), "fabricate": (0.3, 1.0)}
PAIRS = ((0, 0.3), (1, 0.4), (2, 0.3))
SYNERGY_P = 0.5
SYNERGY = {"certify": (1.0, 2.0), "recognize": (0.5, 1.2)}
CONFLICT = {"act": (-1.0, -0.4), "false_abstain": (0.8, 2.0)}


def _shift(p: float, logit: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return round(1 / (1 + math.exp(-(math.log(p / (1 - p)) + logit))), 4)


def _pick(rng: random.Random, weighted) -> object:
    items, weights = zip(*weighted)
    return rng.choices(items, weights=weights)[0]


def draw_world(seed: int) -> Profile:
    """World number `seed` of the distribution (the same seed gives the same world everywhere)."""
    rng = random.Random(f"harnessx-world-{seed}")
    base = load_profile("baseline")
    archetype = _pick(rng, [(name, w) for name, (w, _) in ARCHETYPES.items()])
    shifts = ARCHETYPES[archetype][1]
    rates: dict = {}
    for name, value in base.rates.items():
        if isinstance(value, dict):
            rates[name] = {k: _shift(v, rng.gauss(0, RATE_SD) + shifts.get(name, 0.0)) for k, v in value.items()}
        else:
            rates[name] = _shift(value, rng.gauss(0, RATE_SD) + shifts.get(name, 0.0))
    table = {cue.id: cue for cue in cue_table().cues}
    effects: dict[str, dict[str, float]] = {}
    for cue in CUES:
        own = {rate: round(shift * rng.uniform(*SCALE), 3) for rate, shift in table[cue].effects.items()} \
            if rng.random() < KEEP_P else {}
        if rng.random() < SIDE_P:
            rate = rng.choice(sorted(SIDE_EFFECTS))
            own[rate] = round(own.get(rate, 0.0) + rng.uniform(*SIDE_EFFECTS[rate]), 3)
        if own:
            effects[cue] = own
    interactions: dict[str, dict[str, float]] = {}
    for _ in range(_pick(rng, PAIRS)):
        a, b = sorted(rng.sample(CUES, 2))
        if f"{a}+{b}" in interactions:
            continue
        if rng.random() < SYNERGY_P:
            for cue in (a, b):  # nothing alone
                effects[cue] = {rate: 0.0 for rate in {**table[cue].effects, **effects.get(cue, {})}}
            interactions[f"{a}+{b}"] = {r: round(rng.uniform(*span), 3) for r, span in SYNERGY.items()}
        else:
            interactions[f"{a}+{b}"] = {r: round(rng.uniform(*span), 3) for r, span in CONFLICT.items()}
    return Profile.model_validate({
        **base.model_dump(), "parallel_calls": base.parallel_calls, "name": f"world-{seed}", "rates": rates, "cue_scale": round(rng.uniform(0.6, 1.4), 3),
        "cue_effects": effects, "interactions": interactions,
        "description": f"drawn world {seed} ({archetype})",
        "calibration": "drawn from the documented distribution of harnessx/sim/worlds.py, not calibrated"})


def archetype_of(world: Profile) -> str:
    return world.description.rsplit("(", 1)[-1].rstrip(")")


def world_model(name: str) -> str:
    """The profile name of a world: `draw:<seed>` registers that draw in this process and returns
    `world-<seed>`; any other name (`baseline`, `harmful`, a YAML path) is returned as it is."""
    match = DRAW.fullmatch(name)
    if not match:
        return name
    return register_profile(draw_world(int(match.group(1)))).removeprefix("sim/")


def parse_worlds(spec: str) -> list[str]:
    """`baseline,harmful,draw:0-19` -> the world names (`draw:A-B` expands to every draw A..B)."""
    out: list[str] = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        span = re.fullmatch(r"draw:(\d+)-(\d+)", part)
        if span:
            lo, hi = int(span.group(1)), int(span.group(2))
            if hi < lo:
                raise ValueError(f"{part!r}: the range ends before it starts (expected draw:A-B with A <= B)")
            out += [f"draw:{i}" for i in range(lo, hi + 1)]
        elif part.startswith("draw:") and not DRAW.fullmatch(part):
            raise ValueError(f"{part!r} is not a draw (expected draw:N or draw:A-B)")
        else:
            out.append(part)
    return out
