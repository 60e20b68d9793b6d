"""Profiles of the simulated agent: behaviour rates, cue sensitivity, token and latency models.

A profile is a YAML file in `profiles/` (or any path); `extends: <name>` inherits another profile
and overrides only what it states. `sim/<profile>` names a built-in profile, a registered one or a
YAML path.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, field_validator, model_validator

from harnessx.errors import InputError, one_of
from harnessx.tasks import FAMILIES
from harnessx.validation import read_mapping, validate

PROFILE_DIR = Path(__file__).parent / "profiles"
RATE_NAMES = ("recognize", "correct_blocker", "act", "certify", "premature", "delegate", "fabricate",
              "repair_on_check", "report_recognize", "false_abstain", "wrong_step", "fix_on_check")


def extension_tables() -> dict[str, Path]:
    """Benchmarks' own rate tables (their simulator hooks'): a profile overrides their rates as
    `<prefix><name>`."""
    from harnessx.sim.hooks import rate_tables

    return rate_tables()


@lru_cache(maxsize=1)
def extension_rates() -> dict[str, tuple[str, ...]]:
    """Every benchmark rate a profile may set -> the keys its per-key map must have (() = a scalar)."""
    out: dict[str, tuple[str, ...]] = {}
    for prefix, path in extension_tables().items():
        if path.is_file():
            for name, default in (yaml.safe_load(path.read_text(encoding="utf-8")).get("rates") or {}).items():
                out[prefix + name] = tuple(default) if isinstance(default, dict) else ()
    return out


class Tokens(BaseModel):
    """Token usage: prompt = characters / chars_per_token (+ tool schemas); completion = visible
    output plus a lognormal amount of hidden reasoning."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    reasoning_mean: float = 180.0
    reasoning_sigma: float = 0.6
    chars_per_token: float = 4.0
    tool_schema_tokens: int = 60


class Latency(BaseModel):
    """Per-call delay (seconds) the provider sleeps asynchronously; off by default."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    dist: Literal["off", "fixed", "lognormal"] = "off"
    mean_s: float = 0.0
    sigma: float = 0.5

    def sample(self, rng: random.Random) -> float:
        if self.dist == "off" or self.mean_s <= 0:
            return 0.0
        if self.dist == "fixed":
            return self.mean_s
        # lognormal with the requested mean: mu = ln(mean) - sigma^2 / 2
        return rng.lognormvariate(math.log(self.mean_s) - self.sigma ** 2 / 2, self.sigma)


class Profile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    description: str = ""
    calibration: str = ""
    rates: dict[str, StrictFloat | dict[str, StrictFloat]]
    late_evidence_per_step: float = 0.0
    probe_reads: int = Field(2, ge=0)
    cue_scale: float = 1.0
    cue_effects: dict[str, dict[str, float]] = Field(default_factory=dict)
    # cue pairs that interact: {"cue_a+cue_b": {rate: extra logit shift when both are active}}
    interactions: dict[str, dict[str, float]] = Field(default_factory=dict)
    # common: draws depend on (task, seed, choice) only; text: also on the harness text (re-draws);
    # partial: an episode's draws are the common ones with probability `rho`, else the harness's own
    # (harnessx/sim/pairing.py)
    pairing: Literal["common", "text", "partial"] = "common"
    rho: float = Field(1.0, ge=0.0, le=1.0)
    tokens: Tokens = Field(default_factory=Tokens)
    latency: Latency = Field(default_factory=Latency)
    # several independent tool calls in one reply (harnessx.sim.parallel). It groups calls into
    # replies and draws nothing, so it stays out of `digest` (the episode seeds): on or off, the
    # same (task, seed) meets the same draws.
    parallel_calls: bool = Field(False, exclude=True)

    def base_logit(self, rate: str, family: str | None = None) -> float:
        value = self.rates[rate]
        if isinstance(value, dict):
            value = value[family or "infeasible"]
        p = min(max(float(value), 1e-4), 1 - 1e-4)
        return math.log(p / (1 - p))

    @field_validator("rates", mode="before")
    @classmethod
    def _ints_are_rates(cls, rates: object) -> object:
        """0 and 1 written as integers are rates; strings and booleans are not (StrictFloat refuses them)."""
        fix = lambda v: float(v) if isinstance(v, int) and not isinstance(v, bool) else v  # noqa: E731
        if isinstance(rates, dict):
            return {k: {f: fix(x) for f, x in v.items()} if isinstance(v, dict) else fix(v) for k, v in rates.items()}
        return rates

    @field_validator("rates")
    @classmethod
    def _rates_known_and_in_range(cls, rates: dict) -> dict:
        extensions = extension_rates()
        for name, value in rates.items():
            if name not in RATE_NAMES and name not in extensions:
                raise ValueError(f"unknown rate {name!r} (expected {one_of(RATE_NAMES)}, or a "
                                 f"benchmark's {', '.join(sorted(extensions))})")
            values = value if isinstance(value, dict) else {"": value}
            keys = extensions.get(name) or FAMILIES
            if isinstance(value, dict):
                missing = [f for f in keys if f not in value]
                extra = [f for f in value if f not in keys]
                if missing or extra:
                    raise ValueError(f"rate {name!r} per key needs exactly {', '.join(keys)}"
                                     + (f"; missing {', '.join(missing)}" if missing else "")
                                     + (f"; unknown {', '.join(extra)}" if extra else ""))
            for family, v in values.items():
                if not 0.0 <= v <= 1.0:
                    raise ValueError(f"rate {name!r}{'.' + family if family else ''} = {v} is not a probability "
                                     "(expected 0 <= rate <= 1)")
        return rates

    @model_validator(mode="after")
    def _rho_needs_partial(self) -> "Profile":
        if self.rho != 1.0 and self.pairing != "partial":
            raise ValueError(f"rho = {self.rho} needs pairing: partial (got pairing: {self.pairing})")
        return self

    @property
    def digest(self) -> str:
        # rho at its default is left out, so every profile written before it existed keeps its draws
        dump = self.model_dump_json(exclude={"rho"} if self.rho == 1.0 else None)
        return hashlib.sha256(dump.encode()).hexdigest()[:12]

    @property
    def behaviour_digest(self) -> str:
        """Every field, the ones kept out of `digest` included: what a rollout's cache key holds."""
        hidden = {name: getattr(self, name) for name, field in type(self).model_fields.items() if field.exclude}
        shown = self.model_dump(mode="json", exclude={"rho"} if self.rho == 1.0 else None)  # as in `digest`
        raw = json.dumps([shown, hidden], sort_keys=True, default=str)
        return hashlib.sha256(raw.encode()).hexdigest()[:12]


_REGISTERED: dict[str, Profile] = {}


def register_profile(profile: Profile) -> str:
    """Make an in-memory profile usable as `sim/<name>`; returns that model string."""
    _REGISTERED[profile.name] = profile
    load_profile.cache_clear()
    return f"sim/{profile.name}"


def profile_names() -> list[str]:
    return sorted({p.stem for p in PROFILE_DIR.glob("*.yaml")} | set(_REGISTERED))


def _path(name: str, base: Path | None) -> Path:
    if name.endswith((".yaml", ".yml")):
        path = Path(name)
        return path if path.is_absolute() or base is None else base / path  # relative to the extending profile
    return PROFILE_DIR / f"{name}.yaml"


def _read(name: str, base: Path | None = None, chain: tuple[Path, ...] = ()) -> dict:
    """The profile's mapping with its `extends:` chain merged in; every error names the file."""
    path = _path(name, base)
    if not path.is_file():
        where = f"{chain[-1]}: extends" if chain else "--model"
        raise InputError(where, f"unknown simulated profile {name!r}",
                         f"sim/<profile> with {one_of(profile_names())} or a profile YAML path"
                         + (f" (relative to {chain[-1].parent})" if chain else ""))
    resolved = path.resolve()
    if resolved in chain:
        loop = " -> ".join(p.name for p in (*chain, resolved))
        raise InputError(str(path), f"extends loop ({loop})", "a chain of profiles that ends")
    data = read_mapping(path)  # bad YAML or a non-mapping: one error naming the file
    parent = data.pop("extends", None)
    if not parent:
        return data
    if not isinstance(parent, str):
        raise InputError(f"{path}: extends", f"{parent!r} is not a profile name", "a profile name or YAML path")
    merged = _read(parent, path.parent, (*chain, resolved))
    for key, value in data.items():
        if key in ("rates", "cue_effects", "interactions") and isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _source(name: str) -> str:
    return str(_path(name, None)) if name not in _REGISTERED else f"profile {name!r}"


@lru_cache(maxsize=64)
def load_profile(name: str) -> Profile:
    if name in _REGISTERED:
        return _REGISTERED[name]
    profile = validate(Profile, _read(name), _source(name))
    missing = [r for r in RATE_NAMES if r not in profile.rates]
    if missing:
        raise InputError(_source(name), f"simulated profile {name!r} lacks rate(s) {missing}")
    return profile


def stable_seed(*parts: object) -> int:
    """A 64-bit seed from any JSON-able parts (stable across processes, unlike `hash`)."""
    raw = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(raw.encode()).digest()[:8], "big")
