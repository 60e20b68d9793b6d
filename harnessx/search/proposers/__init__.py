"""Proposers, chosen by name: `bandit` (offline, the default), `rules` (offline, by failure mode), `llm`
(DSPy on any LiteLLM model), `gepa`."""

from __future__ import annotations

import importlib

from harnessx.errors import InputError, one_of
from harnessx.search.names import DEFAULT_PROPOSER, PROPOSER_NAMES
from harnessx.search.proposers.base import Proposal, Proposer, RoundContext
from harnessx.search.proposers.rules import RulesProposer

PROPOSERS = PROPOSER_NAMES  # make_proposer builds each


def make_proposer(name: str, meta_model: str | None = None, api_base: str | None = None) -> Proposer:
    """A proposer by name. `llm` needs --meta-model; `gepa` drives its own loop (see search.gepa)."""
    if name == "rules":
        return RulesProposer()
    if name == "bandit":
        from harnessx.search.proposers.bandit import BanditProposer

        return BanditProposer()
    if name == "llm":
        if not meta_model:
            raise InputError("--proposer llm", "needs a meta-model", "--meta-model <LiteLLM model string>")
        from harnessx.search.proposers.llm import LLMProposer

        return LLMProposer(meta_model, api_base=api_base)
    if name == "gepa":  # by module path: search.gepa imports this package (its base classes)
        gepa = importlib.import_module("harnessx.search.gepa")
        return gepa.GepaProposer(meta_model, api_base=api_base)
    raise InputError("--proposer", f"unknown proposer {name!r}", one_of(PROPOSERS))


__all__ = ["DEFAULT_PROPOSER", "PROPOSERS", "Proposal", "Proposer", "RoundContext", "RulesProposer", "make_proposer"]
