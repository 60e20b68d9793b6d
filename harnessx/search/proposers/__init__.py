"""Proposers, chosen by name: `bandit` (offline, the default), `rules` (offline, by failure mode), `llm`
(DSPy on any LiteLLM model), `gepa`, a plug-in's (entry-point group `harnessx.proposers`), or an import
path `package.module:Class` (see harnessx/search/names.py)."""

from __future__ import annotations

from harnessx.search.names import DEFAULT_PROPOSER, PROPOSER_NAMES, PROPOSER_REGISTRY
from harnessx.search.proposers.base import Proposal, Proposer, RoundContext
from harnessx.search.proposers.rules import RulesProposer

PROPOSERS = PROPOSER_NAMES  # make_proposer builds each


def make_proposer(name: str, meta_model: str | None = None, api_base: str | None = None) -> Proposer:
    """A proposer by name or import path, built by its `from_options` (`llm` needs --meta-model; `gepa`
    drives its own loop, see search.gepa)."""
    cls: type[Proposer] = PROPOSER_REGISTRY.load(name)  # type: ignore[assignment]
    return cls.from_options(meta_model=meta_model, api_base=api_base)


__all__ = ["DEFAULT_PROPOSER", "PROPOSERS", "Proposal", "Proposer", "RoundContext", "RulesProposer", "make_proposer"]
