"""Sampling settings of a rollout's model calls: temperature and top-p, and the seed of each call.

The harness switches `temperature` / `top_p` win over the run's defaults (the client's, set by
`--temperature` / `--top-p`). Every call of a rollout uses the rollout's seed (epochs get their
own seeds, so at temperature > 0 epochs differ deterministically); a retry after a malformed reply
uses a seed derived from the rollout seed and the retry number, so it is not the same draw again.
"""

from __future__ import annotations

import hashlib
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
    return {k: v for k, v in (("temperature", switches.temperature), ("top_p", switches.top_p)) if v is not None}
