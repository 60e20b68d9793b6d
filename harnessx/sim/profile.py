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
from pydantic import BaseModel, ConfigDict, Field

from harnessx.errors import InputError

PROFILE_DIR = Path(__file__).parent / "profiles"
RATE_NAMES = ("recognize", "correct_blocker", "act", "certify", "premature", "delegate", "fabricate",
              "repair_on_check", "report_recognize", "false_abstain", "wrong_step", "fix_on_check")


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
    rates: dict[str, float | dict[str, float]]
    late_evidence_per_step: float = 0.0
    probe_reads: int = Field(2, ge=0)
    cue_scale: float = 1.0
    cue_effects: dict[str, dict[str, float]] = Field(default_factory=dict)
    tokens: Tokens = Field(default_factory=Tokens)
    latency: Latency = Field(default_factory=Latency)

    def base_logit(self, rate: str, family: str | None = None) -> float:
        value = self.rates[rate]
        if isinstance(value, dict):
            value = value[family or "infeasible"]
        p = min(max(float(value), 1e-4), 1 - 1e-4)
        return math.log(p / (1 - p))

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:12]


_REGISTERED: dict[str, Profile] = {}


def register_profile(profile: Profile) -> str:
    """Make an in-memory profile usable as `sim/<name>`; returns that model string."""
    _REGISTERED[profile.name] = profile
    load_profile.cache_clear()
    return f"sim/{profile.name}"


def profile_names() -> list[str]:
    return sorted({p.stem for p in PROFILE_DIR.glob("*.yaml")} | set(_REGISTERED))


def _read(name: str) -> dict:
    path = Path(name) if name.endswith((".yaml", ".yml")) else PROFILE_DIR / f"{name}.yaml"
    if not path.is_file():
        raise InputError("--model", f"unknown simulated profile {name!r}",
                         f"sim/<profile> with one of {profile_names()} or a profile YAML path")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    parent = data.pop("extends", None)
    if not parent:
        return data
    merged = _read(parent)
    for key, value in data.items():
        merged[key] = {**merged.get(key, {}), **value} if key in ("rates", "cue_effects") else value
    return merged


@lru_cache(maxsize=64)
def load_profile(name: str) -> Profile:
    if name in _REGISTERED:
        return _REGISTERED[name]
    data = _read(name)
    profile = Profile.model_validate(data)
    missing = [r for r in RATE_NAMES if r not in profile.rates]
    if missing:
        raise InputError("--model", f"simulated profile {name!r} lacks rate(s) {missing}")
    return profile


def stable_seed(*parts: object) -> int:
    """A 64-bit seed from any JSON-able parts (stable across processes, unlike `hash`)."""
    raw = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(raw.encode()).digest()[:8], "big")
