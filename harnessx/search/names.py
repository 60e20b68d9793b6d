"""The proposer and acceptance-rule registries, and the shipped defaults.

`--proposer` and `--accept` take a name registered in the entry-point group `harnessx.proposers` /
`harnessx.acceptance` (HarnessX's own in its pyproject.toml), or an import path `package.module:Class`
(harnessx/plugins.py). Listing the names imports nothing, so the CLI's help and the config parts read
them here without importing the search (its rules and proposers load SciPy, Optuna and LiteLLM); the
constructors are `make_proposer` (harnessx/search/proposers) and `make_acceptance` (harnessx/search/rules.py).
"""

from __future__ import annotations

from pathlib import Path

SPACE_DIR = Path(__file__).resolve().parents[2] / "search_spaces"  # the named search spaces (<name>.yaml)

from harnessx.plugins import Registry, subclass_of


PROPOSER_REGISTRY = Registry("harnessx.proposers", "--proposer", "proposer", "a subclass of "
                             "harnessx.search.proposers.base.Proposer", subclass_of("harnessx.search.proposers.base:Proposer"))
RULE_REGISTRY = Registry("harnessx.acceptance", "--accept", "acceptance rule", "a subclass of "
                         "harnessx.search.acceptance.AcceptanceRule", subclass_of("harnessx.search.acceptance:AcceptanceRule"))

DEFAULT_PROPOSER = "bandit"  # harnessx/search/proposers/bandit.py
NEEDS_META_MODEL = ("llm",)  # built-in proposers that cannot run without --meta-model (checked before DSPy loads)
PROPOSER_NAMES = tuple(PROPOSER_REGISTRY.names())
DEFAULT_RULE = "default"  # an alias of `explore` (harnessx/search/explore.py)
RULE_NAMES = tuple(RULE_REGISTRY.names())
DEFAULT_ROUNDS = 8        # rounds when neither --rounds nor a budget (--max-rollouts, --max-cost) is given
BUDGET_ROUNDS_MAX = 1000  # a budget-driven search's ceiling on rounds (the budget stops it well before)


def rounds_limit(rounds: int | None, budgeted: bool) -> int:
    """The most rounds a search (or its plan) runs: --rounds when given, else the budget's ceiling when
    a budget sets the rounds, else DEFAULT_ROUNDS."""
    if rounds is not None:
        return rounds
    return BUDGET_ROUNDS_MAX if budgeted else DEFAULT_ROUNDS
