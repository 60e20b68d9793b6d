"""How a simulated episode's random draws are shared between harnesses (a profile's `pairing`).

- `common` (default): the draws depend on (profile, task, epoch seed) only. Two harnesses meet the
  same luck on the same (task, seed) whatever separates them; an edit changes an outcome only
  through the rates its cues shift (common random numbers: no rollout noise between harnesses).
- `text`: also keyed on the text the model was sent, so any prompt change re-draws every choice (an
  independent rollout) while an edit that changes no text (a silent switch) re-draws nothing.
- `partial` (parameter `rho`): per (task, seed) a shared coin decides, the same for every harness:
  with probability `rho` the episode takes the common draws, otherwise draws of its own keyed on
  the harness's identity (its hash, which the runtime sends to a simulated model only). Every kind
  of edit — a cue clause, a plain wording, a switch — re-draws the same share of episodes, so the
  noise is fair across edit kinds, and two harnesses with equal rates agree in outcome with
  correlation `rho` (outcomes are identical on the shared episodes and independent on the rest).
  The marginal law of each episode is unchanged, so expected scores (ground truth) are those of the
  `common` world. `rho` is the intra-task correlation of a real model's reruns;
  docs/search-benchmarks.md ("Noise world") estimates it from published pass^k figures.
"""

from __future__ import annotations

import hashlib
import random

from harnessx.sim.cues import cue_table
from harnessx.sim.profile import Profile, stable_seed


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def shared(profile: Profile, task_id: str, seed: int) -> bool:
    """Whether this (task, seed) takes the common draws (always, unless `pairing: partial`)."""
    if profile.pairing != "partial":
        return profile.pairing == "common"
    coin = random.Random(stable_seed("shared-coin", profile.name, profile.digest, task_id, seed)).random()
    return coin < profile.rho


def episode_seed(profile: Profile, task_id: str, seed: int, harness_text: str, harness_id: str = "") -> int:
    """Seed of one episode's draws under the profile's pairing.

    `harness_id` is the harness hash (sent by the runtime); without one (a lone probe call) a
    `partial` profile keys the episode's own draws on the text it was sent."""
    parts = (profile.name, profile.digest, cue_table().version, task_id, seed)
    if profile.pairing == "text":
        return stable_seed(*parts, _digest(harness_text))
    if profile.pairing == "partial" and not shared(profile, task_id, seed):
        return stable_seed(*parts, "own", harness_id or _digest(harness_text))
    return stable_seed(*parts, "")


def with_rho(name: str, rho: float) -> str:
    """`sim/<name>` with `pairing: partial` at `rho` (registered in this process); rho = 1: unchanged."""
    from harnessx.sim.profile import load_profile, register_profile

    if rho == 1.0:
        return f"sim/{name}"
    base = load_profile(name)
    return register_profile(base.model_copy(update={"name": f"{base.name}-rho{rho:g}", "pairing": "partial",
                                                    "rho": rho}))
