"""Read the harness text the way the simulated agent does: through the cue table (`cues.yaml`).

Readings are cached per text, so a long system prompt is scanned once per process, not once per
call. Nothing here sees the Harness object: only the text the model is sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from harnessx.sim.profile import Profile

CUE_FILE = Path(__file__).parent / "cues.yaml"
SCOPES = ("system", "handoff", "check", "report")


@dataclass(frozen=True)
class Cue:
    id: str
    scope: str
    patterns: tuple[re.Pattern, ...]
    effects: dict[str, float]


@dataclass(frozen=True)
class CueTable:
    version: int
    handoff_marker: str
    cues: tuple[Cue, ...]
    mechanisms: dict[str, tuple[re.Pattern, ...]]
    message_kinds: dict[str, tuple[re.Pattern, ...]]


def _compile(patterns: list[str]) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


@lru_cache(maxsize=1)
def cue_table() -> CueTable:
    data = yaml.safe_load(CUE_FILE.read_text(encoding="utf-8"))
    cues = []
    for cue_id, spec in data["cues"].items():
        if spec["scope"] not in SCOPES:
            raise ValueError(f"cue {cue_id!r}: unknown scope {spec['scope']!r}")
        cues.append(Cue(cue_id, spec["scope"], _compile(spec["patterns"]), dict(spec.get("effects", {}))))
    return CueTable(version=int(data["version"]), handoff_marker=data["handoff_marker"], cues=tuple(cues),
                    mechanisms={k: _compile(v) for k, v in data["mechanisms"].items()},
                    message_kinds={k: _compile(v) for k, v in data["message_kinds"].items()})


@lru_cache(maxsize=4096)
def active_cues(text: str, scope: str) -> frozenset[str]:
    """Ids of the cues of `scope` that `text` triggers."""
    return frozenset(c.id for c in cue_table().cues if c.scope == scope and any(p.search(text) for p in c.patterns))


def shifts(cues: frozenset[str], profile: Profile) -> dict[str, float]:
    """Summed logit shifts of the active cues on each rate, under the profile's sensitivity."""
    total: dict[str, float] = {}
    for cue in cue_table().cues:
        if cue.id in cues:
            for rate, shift in {**cue.effects, **profile.cue_effects.get(cue.id, {})}.items():
                total[rate] = total.get(rate, 0.0) + shift * profile.cue_scale
    for pair, effects in profile.interactions.items():
        if set(pair.split("+")) <= cues:
            for rate, shift in effects.items():
                total[rate] = total.get(rate, 0.0) + shift * profile.cue_scale
    return total


@lru_cache(maxsize=4096)
def message_kind(text: str) -> str | None:
    """`check` / `report` when a harness message reads as a self-check or report request."""
    for kind, patterns in cue_table().message_kinds.items():
        if any(p.search(text) for p in patterns):
            return kind
    return None


@dataclass(frozen=True)
class Mechanism:
    """The certified action the prompt offers: mode none / tool / file / stop, and its target."""

    mode: str = "none"
    target: str = ""


@lru_cache(maxsize=4096)
def mechanism(system: str, tool_names: frozenset[str]) -> Mechanism:
    for mode, patterns in cue_table().mechanisms.items():
        for pattern in patterns:
            for match in pattern.finditer(system):
                target = match.group(1)
                if mode != "tool" or target in tool_names:
                    return Mechanism(mode, target)
    return Mechanism()


def handoff_text(first_user: str) -> str:
    """The planner's plan inside the executor's first message ('' when there is none)."""
    marker = cue_table().handoff_marker
    return first_user.split(marker, 1)[1] if marker in first_user else ""
