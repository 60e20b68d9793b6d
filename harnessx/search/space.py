"""The search space: the initial harness (R0), clause libraries per component, switch groups.

A space is a YAML file (`search_spaces/*.yaml`). A *library* is a set of alternative wordings for
one concern (abandon protocol, prerequisite checks, ...) that live in one component and address
named failure modes; an edit puts one clause of a library into the component, replacing the
library's clause already there. A *switch group* is a set of switches with their allowed values,
also tied to the failure modes it addresses.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harnessx.errors import InputError, one_of
from harnessx.harness import COMPONENTS, Harness, Switches, resolve_harness
from harnessx.scoring.failure_modes import BLOCKED, FEASIBLE
from harnessx.search.names import SPACE_DIR
from harnessx.validation import read_mapping, validate

FAILURE_MODES = tuple(dict.fromkeys((*BLOCKED, *FEASIBLE)))
# A component the runtime ignores unless a switch turns it on: (switch, inert value, value that enables it).
ENABLED_BY = {
    "abandon_protocol": ("abandon_mode", "none", "auto"),
    "self_check_prompt": ("self_check", "off", "end"),
    "report_prompt": ("end_report", False, True),
    "planner_prompt": ("topology", "single", "planner-executor"),
    "executor_prompt": ("topology", "single", "planner-executor"),
}


def _known_modes(modes: list[str]) -> list[str]:
    unknown = [m for m in modes if m not in FAILURE_MODES]
    if unknown:
        raise ValueError(f"unknown failure mode(s) {unknown}; known: {list(FAILURE_MODES)}")
    return modes


class Clause(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str
    text: str = Field(min_length=1)


class Library(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    component: str
    addresses: list[str]
    clauses: list[Clause] = Field(min_length=1)

    _modes = field_validator("addresses")(_known_modes)

    @field_validator("component")
    @classmethod
    def _known_component(cls, value: str) -> str:
        if value not in COMPONENTS:
            raise ValueError(f"unknown component {value!r}; known: {list(COMPONENTS)}")
        return value

    @model_validator(mode="after")
    def _unique_ids(self) -> "Library":
        ids = [c.id for c in self.clauses]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate clause ids in {ids}")
        return self

    def current(self, harness: Harness) -> Clause | None:
        """The clause of this library the harness's component holds, if any."""
        text = harness.text(self.component)
        held = [c for c in self.clauses if c.text.strip() in text]
        return max(held, key=lambda c: len(c.text.strip()), default=None)

    def apply(self, harness: Harness, clause: Clause) -> Harness:
        """Put `clause` into the component (replacing this library's clause) and enable the component."""
        text = harness.text(self.component)
        held = self.current(harness)
        if held is not None:
            text = text.replace(held.text.strip(), clause.text.strip())
        else:
            text = "\n".join(p for p in (text.rstrip(), clause.text.strip()) if p) + "\n"
        return enable(harness.with_component(self.component, text), self.component)


def enable(harness: Harness, component: str) -> Harness:
    """Turn on the switch without which the runtime ignores `component`, if it is off."""
    if component in ENABLED_BY and harness.text(component):
        switch, inert, enabled = ENABLED_BY[component]
        if getattr(harness.switches, switch) == inert:
            return harness.with_switches(**{switch: enabled})
    return harness


class IntRange(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    low: int
    high: int
    step: int = 1

    @model_validator(mode="after")
    def _ordered(self) -> "IntRange":
        if self.low > self.high or self.step < 1:
            raise ValueError(f"need low <= high and step >= 1 (got {self.low}, {self.high}, {self.step})")
        return self


class SwitchGroup(BaseModel):
    """Switches tuned together. Each param is a list of choices or an integer range."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    addresses: list[str]
    params: dict[str, IntRange | list[Any]] = Field(min_length=1)

    _modes = field_validator("addresses")(_known_modes)

    @field_validator("params")
    @classmethod
    def _valid_switches(cls, params: dict[str, IntRange | list[Any]]) -> dict[str, IntRange | list[Any]]:
        for name, choices in params.items():
            if name not in Switches.model_fields:
                raise ValueError(f"unknown switch {name!r}; known: {list(Switches.model_fields)}")
            values = [choices.low, choices.high] if isinstance(choices, IntRange) else choices
            if not values:
                raise ValueError(f"switch {name!r} has no choices")
            for value in values:
                Switches.model_validate({name: value})
        return params


    def distributions(self) -> dict[str, BaseDistribution]:
        """The group's params as Optuna distributions."""
        return {name: IntDistribution(c.low, c.high, step=c.step) if isinstance(c, IntRange)
                else CategoricalDistribution(c) for name, c in self.params.items()}


def contains(dist: BaseDistribution, value: object) -> bool:
    """Whether an Optuna distribution admits `value` (as stored in the harness)."""
    if isinstance(dist, CategoricalDistribution):
        return value in dist.choices
    return (isinstance(dist, IntDistribution) and isinstance(value, int) and not isinstance(value, bool)
            and dist.low <= value <= dist.high and (value - dist.low) % dist.step == 0)


class SearchSpace(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    description: str = ""
    r0: str | dict[str, Any] = Field(description="preset name, harness file (relative to the space) or inline harness")
    libraries: dict[str, Library] = Field(default_factory=dict)
    switches: dict[str, SwitchGroup] = Field(default_factory=dict)
    source: str = ""

    def initial(self) -> Harness:
        """R0: the harness every search starts from."""
        if isinstance(self.r0, dict):
            harness = validate(Harness, self.r0, f"{self.source}: r0")
        else:
            local = Path(self.source).parent / self.r0 if self.source else Path(self.r0)
            harness = resolve_harness(str(local) if local.is_file() else self.r0, f"{self.source or 'search space'}: r0")
        return harness.renamed("R0", space=self.name)

    def targets_for(self, mode: str) -> list[str]:
        """Library and switch-group names that address `mode`, libraries first, in file order."""
        return ([n for n, lib in self.libraries.items() if mode in lib.addresses]
                + [n for n, grp in self.switches.items() if mode in grp.addresses])

    def distributions(self) -> dict[str, BaseDistribution]:
        """Every switch the space tunes, as Optuna distributions (for the tracking study)."""
        return {k: v for group in self.switches.values() for k, v in group.distributions().items()}

    @property
    def digest(self) -> str:
        body = self.model_dump(mode="json", exclude={"source"})
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]


def space_names() -> list[str]:
    return sorted(p.stem for p in SPACE_DIR.glob("*.yaml"))


def load_space(spec: str = "default") -> SearchSpace:
    """A space by name (`search_spaces/<name>.yaml`) or path; errors name the file and the field."""
    path = Path(spec) if spec.endswith((".yaml", ".yml")) else SPACE_DIR / f"{spec}.yaml"
    if not path.is_file():
        raise InputError("--space", f"no search space {spec!r}", "a YAML path or " + one_of(space_names()))
    data = read_mapping(path)
    space = validate(SearchSpace, {**data, "source": str(path)}, str(path))
    try:
        space.initial()
    except InputError as exc:
        raise InputError(str(path), f"field 'r0': {exc}") from None
    return space


def stable_seed(*parts: object) -> int:
    """A 31-bit seed from JSON-able parts, stable across processes (unlike `hash`)."""
    raw = json.dumps(parts, sort_keys=True, default=str)
    return int.from_bytes(hashlib.sha256(raw.encode()).digest()[:4], "big") >> 1
