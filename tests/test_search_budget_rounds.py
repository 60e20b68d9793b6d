"""The budget is the search's primary control (#48 item 2): with --max-rollouts and no --rounds the
search runs rounds while what is left pays for a round at the rule's most, so how many candidates it
looks at comes from the budget. Class: any budget, any built-in rule -- the spend never exceeds the
budget, no round is cut off half-judged, the budget's last rollouts buy a narrower round (fewer
proposals) rather than none, and it stops only when the rest could not pay for a round of one proposal
(or the proposer ran dry); `--rounds` still caps the rounds."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.toy import ToySuite
from harnessx.search import Search, SearchConfig
from harnessx.search.planner import PlanConfig, plan


def run(tmp_path, name: str, **budget):
    config = SearchConfig.of(objective="joint", env="toy", proposals=2, runs_dir=str(tmp_path / "runs"),
                             tracking_uri=None, name=name, concurrency=4, **budget)
    search = Search(config, suite=ToySuite(n_sources=4))
    return search, asyncio.run(search.run())


def rows_by_round(result) -> dict[int, int]:
    rows = [json.loads(line) for line in (result.run_dir / "ledger.jsonl").read_text().splitlines()]
    out: dict[int, int] = {}
    for row in rows:
        out[row["round"]] = out.get(row["round"], 0) + 1
    return out


@pytest.mark.parametrize("accept", ["default", "greedy", "paired"])
def test_any_budget_buys_whole_rounds_until_the_rest_cannot_pay_for_one(tmp_path, accept):
    rng = random.Random(48)
    for i, budget in enumerate(sorted(rng.sample(range(12, 700), 4))):
        search, result = run(tmp_path, f"{accept}-{i}", max_rollouts=budget, accept=accept)
        s = result.summary
        rule = search.acceptance
        assert s["rollouts"] <= budget
        per_round = [n for r, n in sorted(rows_by_round(result).items()) if r > 0]
        # every round holds all the looks of 2 proposals, or, once the rest cannot pay for that, of 1:
        # narrower, never cut off half-judged, and never wider again
        assert all(n in (rule.looks(2), rule.looks(1)) for n in per_round), per_round
        assert per_round == sorted(per_round, reverse=True), per_round
        reason = s.get("stop_reason") or ""
        if reason.startswith("budget:"):
            assert budget - s["rollouts"] < rule.round_rollouts(12, 1) and f"{budget - s['rollouts']} rollouts left" in reason
        else:  # the only other way a budget-driven search ends here: the proposer has no new edit
            assert "no new edit" in reason, reason
        # whole rounds at the rule's most would have bought no more than it ran
        assert s["rounds_done"] >= (budget - 12) // rule.round_rollouts(12, 2)


def test_the_budgets_last_rollouts_buy_a_narrower_round(tmp_path):
    """A rest that pays for 1 of 2 proposals at the rule's most runs a round of 1, and says so."""
    probe, _ = run(tmp_path, "probe", max_rollouts=12, accept="greedy")  # R0 only: the rule's figures
    one, two = probe.acceptance.round_rollouts(12, 1), probe.acceptance.round_rollouts(12, 2)
    search, result = run(tmp_path, "narrow", max_rollouts=12 + two + one, accept="greedy")
    per_round = [n for r, n in sorted(rows_by_round(result).items()) if r > 0]
    assert per_round == [2, 1], per_round  # toy's proposer has edits to spare for two rounds
    assert result.summary["rollouts"] == 12 + two + one
    assert "0 rollouts left" in result.summary["stop_reason"]


def test_rounds_given_caps_the_rounds_and_neither_gives_eight(tmp_path):
    _, capped = run(tmp_path, "capped", max_rollouts=5000, rounds=1)
    assert capped.summary["rounds_done"] == 1
    # a dollar budget over a simulated model's free rollouts bounds nothing: 8 rounds, as without a budget
    _, free = run(tmp_path, "free", max_cost=1.0)
    assert free.summary["rounds_done"] <= 8 and free.summary["cost_usd"] == 0
    assert free.summary["rounds_done"] == 8 or "no new edit" in free.summary["stop_reason"]
    assert SearchConfig().budget.rounds_limit == 8 and not SearchConfig().budget.budgeted
    assert SearchConfig.of(max_cost=1.0).budget.budgeted


def test_the_plan_and_the_pre_flight_say_the_budget_sets_the_rounds(tmp_path, monkeypatch):
    p = plan(PlanConfig(tasks=128, max_rollouts=1000))
    assert p.budgeted and p.rollouts == 1000 and p.rounds == (1000 - 128) // p.rollouts_per_round
    assert not any("buys only" in w for w in p.warnings)
    given = plan(PlanConfig(tasks=128, max_rollouts=1000, rounds=8))
    assert not given.budgeted and any("buys only 2 of the 8 rounds" in w for w in given.warnings)  # (1000 - 128) // 300
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(app, ["search", "--env", "toy", "--max-rollouts", "200", "--no-mlflow", "--name", "b",
                                   "--certify-split", "none"])
    assert out.exit_code == 0, out.output
    flat = " ".join(out.output.split())
    assert "sets the rounds (no --rounds)" in flat and "stopped: budget:" in flat
    summary = json.loads((tmp_path / "runs" / "b" / "summary.json").read_text())
    assert summary["rollouts"] <= 200 and summary["rounds_done"] >= 1
