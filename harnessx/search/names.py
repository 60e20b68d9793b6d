"""The proposer and acceptance-rule names, and the shipped defaults, as plain strings.

The CLI's help and the config parts read them here without importing the search (its rules and
proposers load SciPy, Optuna and LiteLLM); tests/test_cli_startup.py checks them against the
registries (`harnessx.search.proposers.PROPOSERS`, `harnessx.search.rules.ACCEPTANCE`).
"""

from __future__ import annotations

from pathlib import Path

SPACE_DIR = Path(__file__).resolve().parents[2] / "search_spaces"  # the named search spaces (<name>.yaml)

DEFAULT_PROPOSER = "bandit"  # harnessx/search/proposers/bandit.py
PROPOSER_NAMES = ("bandit", "rules", "llm", "gepa")
DEFAULT_RULE = "default"  # an alias of `explore` (harnessx/search/explore.py)
RULE_NAMES = ("default", "explore", "greedy", "paired")
