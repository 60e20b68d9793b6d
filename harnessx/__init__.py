"""HarnessX: search the harness around a fixed LLM agent so that it solves feasible tasks and
recognises blocked ones, deferring for the right reason.

The public protocols — the seams a user implements or calls — are importable from here:
`from harnessx import Environment, Proposer, AcceptanceRule, Search, SearchConfig`. They are
imported on first use (a module-level `__getattr__`), so `import harnessx`, which every `harnessx`
command does, loads none of LiteLLM, Optuna or MLflow.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

# Never fetch LiteLLM's cost map from the network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"

# public name -> "module:attribute", imported on first access
_EXPORTS: dict[str, str] = {
    # what a search works on
    "Task": "harnessx.tasks:Task",
    "ToolCall": "harnessx.tasks:ToolCall",
    "Trajectory": "harnessx.trajectory:Trajectory",
    "Harness": "harnessx.harness.model:Harness",
    "ToolSpec": "harnessx.tools:ToolSpec",
    "AbandonSpec": "harnessx.tools:AbandonSpec",
    # environment seam
    "Environment": "harnessx.envs.base:Environment",
    "Suite": "harnessx.envs.base:Suite",
    "EnvStart": "harnessx.envs.base:EnvStart",
    "StepOutcome": "harnessx.envs.base:StepOutcome",
    "StateChange": "harnessx.envs.base:StateChange",
    # benchmark seam
    "Benchmark": "harnessx.benchmarks.base:Benchmark",
    # proposer seam
    "Proposer": "harnessx.search.proposers.base:Proposer",
    "Proposal": "harnessx.search.proposers.base:Proposal",
    "RoundContext": "harnessx.search.proposers.base:RoundContext",
    # acceptance seam
    "AcceptanceRule": "harnessx.search.acceptance:AcceptanceRule",
    "Verdict": "harnessx.search.acceptance:Verdict",
    # executor seam
    "Executor": "harnessx.executors.base:Executor",
    "ExecutorConfig": "harnessx.executors.base:ExecutorConfig",
    "RolloutJob": "harnessx.executors.base:RolloutJob",
    # model providers
    "register_provider": "harnessx.models.providers:register_provider",
    "register_preflight": "harnessx.models.providers:register_preflight",
    "register_identity": "harnessx.models.providers:register_identity",
    "register_script": "harnessx.models.providers:register_script",
    # the search
    "SearchConfig": "harnessx.search.config:SearchConfig",
    "Search": "harnessx.search.loop:Search",
    "SearchResult": "harnessx.search.loop:SearchResult",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module 'harnessx' has no attribute {name!r}")
    module_name, attr = target.split(":")
    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
