"""Harness search: R0 then rounds of proposals, judged on the search split, tracked and resumable."""

from harnessx.search.acceptance import AcceptanceRule, Verdict
from harnessx.search.arena import Arena, BudgetExhausted
from harnessx.search.config import SearchConfig
from harnessx.search.greedy import Greedy
from harnessx.search.loop import Search, SearchResult
from harnessx.search.objectives import get_objective, objective_names
from harnessx.search.proposers import PROPOSERS, Proposal, Proposer, RoundContext, make_proposer
from harnessx.search.racing import PairedRacing
from harnessx.search.rules import make_acceptance
from harnessx.search.space import SearchSpace, load_space

__all__ = ["AcceptanceRule", "Arena", "BudgetExhausted", "Greedy", "PROPOSERS", "PairedRacing", "Proposal", "Proposer",
           "RoundContext", "Search", "SearchConfig", "SearchResult", "SearchSpace", "Verdict", "get_objective", "objective_names",
           "load_space", "make_acceptance", "make_proposer"]
