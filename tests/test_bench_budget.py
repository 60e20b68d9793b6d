"""bench/search_efficiency.py --max-rollouts: the default (and its bench-only designs) get the budget
and no --rounds, so the budget sets their rounds as a user's `--max-rollouts N` does; the paper
protocol and every other strategy keep --rounds (their rollouts are the reference the budget is a
share of)."""

from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from search_efficiency import DESIGNS, budget  # noqa: E402

from harnessx.search import SearchConfig  # noqa: E402


def test_only_the_default_and_its_designs_are_budget_driven():
    args = Namespace(rounds=6, max_rollouts=973)
    for rule in ("default", *DESIGNS):
        config = SearchConfig.of(**budget(rule, args))
        assert config.budget.budgeted and config.budget.max_rollouts == 973 and config.budget.rounds is None
    for rule in ("greedy", "paired", "prior", "oracle", "composite"):
        assert budget(rule, args) == {"rounds": 6}
    assert budget("default", Namespace(rounds=6, max_rollouts=None)) == {"rounds": 6}


def test_epochs_reach_every_strategy_and_a_resumed_log_must_share_them(tmp_path):
    """--epochs is the searches' seeds per task: R0 of the paper's protocol and of the default pays
    `epochs` rollouts per task, and a job log written at one count does not resume at another."""
    from efficiency_args import parse, settings
    from search_efficiency import job

    _, args = parse(["--envs", "retail", "--retail-tasks", "8", "--heldout-tasks", "8", "--rounds", "0", "--epochs", "2",
                     "--gt-epochs", "1", "--strategies", "paper,default,gepa"])
    assert settings(args)["epochs"] == 2 and "epochs" not in settings(parse([])[1])  # old logs keep their settings
    args.tasks, args.heldout = {"retail": 8}, {"retail": 8}
    out = job("retail", "baseline", 0.5, 0, args)
    assert out["rows"]["paper"]["rollouts"] == 8 * 2  # R0 only: every one of the 8 tasks on both seeds
    assert out["rows"]["default"]["rollouts"] == 8 * 2
