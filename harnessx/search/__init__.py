"""Harness search: R0 then rounds of proposals, judged on the search split, tracked and resumable.

The names below are imported from their modules on first use, so that importing one light module of
the package (a default, a list of names for a command's help) does not import the search loop, Optuna
and LiteLLM with it."""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "AcceptanceRule": "acceptance", "Verdict": "acceptance", "Arena": "arena", "BudgetExhausted": "arena",
    "SearchConfig": "config", "Greedy": "greedy", "Search": "loop", "SearchResult": "loop",
    "get_objective": "objectives", "objective_names": "objectives", "PROPOSERS": "proposers",
    "Proposal": "proposers", "Proposer": "proposers", "RoundContext": "proposers", "make_proposer": "proposers",
    "PairedRacing": "racing", "make_acceptance": "rules", "SearchSpace": "space", "load_space": "space",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'harnessx.search' has no attribute {name!r}")
    return getattr(importlib.import_module(f"harnessx.search.{_WHERE[name]}"), name)
