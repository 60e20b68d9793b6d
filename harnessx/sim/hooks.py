"""Benchmarks' own simulated agents, found through the benchmark registry.

A benchmark whose tasks need moves of their own (a knowing probe, a `{choice, reason}` reply...)
names a hook module in its `simulator`; the responder and the profiles never name a benchmark. A hook
module provides:

- `RATE_PREFIX` and `RATE_TABLE`: its rates' prefix in a profile (e.g. `kapro_`) and the YAML file of
  their defaults (`rates:`), so a profile may override them;
- `claims(side) -> bool`: whether this side channel is one of its tasks;
- `respond(profile, side, hx, messages, tools) -> dict`: the assistant message (as `sim/reply.py`).

The registry is reached through `importlib` (a plug-in table, not an import up the layers).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path
from types import ModuleType

BENCHMARK_REGISTRY = "harnessx.benchmarks.registry"


@lru_cache(maxsize=1)
def hook_modules() -> tuple[ModuleType, ...]:
    names = importlib.import_module(BENCHMARK_REGISTRY).simulators()
    return tuple(importlib.import_module(name) for name in names)


def hook_for(side: dict) -> ModuleType | None:
    """The hook module whose benchmark this task belongs to, or None (the generic simulated agent)."""
    return next((hook for hook in hook_modules() if hook.claims(side)), None)


def rate_tables() -> dict[str, Path]:
    """Every hook's rate prefix -> its YAML table of default rates."""
    return {hook.RATE_PREFIX: hook.RATE_TABLE for hook in hook_modules()}
