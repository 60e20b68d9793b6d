"""Harness search: R0 then rounds of proposals, judged on the search split, tracked and resumable."""

from harnessx.search.acceptance import Greedy, PairedRacing, Verdict, make_acceptance
from harnessx.search.arena import Arena, BudgetExhausted
from harnessx.search.loop import Search, SearchConfig, SearchResult
from harnessx.search.objectives import get_objective, objective_names
from harnessx.search.proposers import PROPOSERS, Proposal, Proposer, RoundContext, make_proposer
from harnessx.search.space import SearchSpace, load_space

__all__ = ["Arena", "BudgetExhausted", "Greedy", "PROPOSERS", "PairedRacing", "Proposal", "Proposer",
           "RoundContext", "Search", "SearchConfig", "SearchResult", "SearchSpace", "Verdict", "get_objective", "objective_names",
           "load_space", "make_acceptance", "make_proposer"]
