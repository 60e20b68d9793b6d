"""Sampling settings of a rollout's model calls: temperature and top-p, and the seed of each call.

The harness switches `temperature` / `top_p` win over the run's defaults (the client's, set by
`--temperature` / `--top-p`). Every call of a rollout uses the rollout's seed (epochs get their
own seeds, so at temperature > 0 epochs differ deterministically); a retry after a malformed reply
uses a seed derived from the rollout seed and the retry number, so it is not the same draw again.
Every command (search, eval, compare) takes the run's defaults as one `SamplingDefaults` and seeds
its epochs with `epoch_seeds`: seed*1000+e, deterministic and distinct per epoch.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from harnessx.harness.model import Switches


def call_seed(rollout_seed: int, retry: int = 0) -> int:
    """The seed of one model call: the rollout's, or a deterministic other one for retry `retry`."""
    if retry <= 0:
        return rollout_seed
    digest = hashlib.sha256(f"{rollout_seed}|retry|{retry}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def sampling_kwargs(switches: Switches) -> dict[str, Any]:
    """The harness's overrides of the run's sampling defaults (absent: the client's apply)."""
    return {k: v for k, v in (("temperature", switches.temperature), ("top_p", switches.top_p),
                              ("reasoning_effort", switches.reasoning_effort)) if v is not None}


def epoch_seeds(seed: int, epochs: int) -> list[int]:
    """The rollout seeds of `epochs` epochs under run seed `seed`: seed*1000+e (seed 0: 0..N-1)."""
    return [seed * 1000 + e for e in range(epochs)]


@dataclass(frozen=True)
class SamplingDefaults:
    """A run's sampling defaults (`--temperature`, `--top-p`, `--reasoning-effort`) and its seed (`--seed`)."""

    temperature: float = 0.0
    top_p: float | None = None
    seed: int = 0
    reasoning_effort: str | None = None

    def epoch_seeds(self, epochs: int) -> list[int]:
        return epoch_seeds(self.seed, epochs)

    def key(self) -> dict[str, Any]:
        """What an evaluation key holds about sampling: only settings off the defaults (so the keys,
        and output files, of runs made before these options existed do not change)."""
        return {**({"temperature": self.temperature} if self.temperature else {}),
                **({"top_p": self.top_p} if self.top_p is not None else {}), **({"seed": self.seed} if self.seed else {}),
                **({"reasoning_effort": self.reasoning_effort} if self.reasoning_effort else {})}


COPIES_WARNING = ("--epochs > 1 at temperature 0: a deterministic model repeats each rollout, so the epochs are "
                  "copies. The paired test averages a task's epochs and the bootstrap draws a source with all "
                  "its epochs, so copies do not add trials there; the per-rate Wilson intervals count "
                  "rollouts (n is inflated by the copies). Set --temperature > 0 for independent draws.")


def copies_warning(epochs: int, temperature: float, switch_temperatures: list[float | None],
                   simulated: bool) -> str | None:
    """The warning for epochs that are copies: a real model at temperature 0 on every harness (a
    harness's `temperature` switch, where set, wins over the run's `temperature`)."""
    effective = [temperature if t is None else t for t in switch_temperatures] or [temperature]
    return COPIES_WARNING if epochs > 1 and not simulated and not any(effective) else None


def seed_environment(env: Any, task_id: str, seed: int) -> dict[str, int]:
    """Let an environment with sampled parts of its own (retail's LLM user) seed them for this
    rollout via its optional `seed_rollout(task_id, seed)`; returns the seeds it reports, to record."""
    hook = getattr(env, "seed_rollout", None)
    return dict(hook(task_id, seed)) if callable(hook) else {}
