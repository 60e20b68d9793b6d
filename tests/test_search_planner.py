"""The budget and power planner against hand-computed figures, and `harnessx plan` end to end."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.errors import InputError
from harnessx.search.planner import PlanConfig, exact_power, mde, plan, power


def test_exact_paired_binomial_power_by_hand():
    # 4 pairs, challenger-only success with p10 = 0.5, never incumbent-only (p01 = 0), one-sided alpha 0.1.
    # Given D discordant pairs the sign test rejects only at D = 4 with all 4 for the challenger
    # (P = 1/16 = 0.0625 <= 0.1; D = 3 gives at best 1/8 > 0.1), so power = P(D = 4) = 0.5^4.
    assert exact_power(4, 0.5, 0.0, 0.1) == pytest.approx(0.0625)
    # 5 pairs, p10 = 0.3, p01 = 0.1, alpha 0.05: reject only at D = 5, X = 5 (1/32 = 0.031; D = 4: 1/16 > 0.05)
    assert exact_power(5, 0.3, 0.1, 0.05) == pytest.approx(0.3 ** 5)


def test_normal_mde_and_power_by_hand():
    c = PlanConfig(tasks=128, accept="paired", proposals=3, alpha=0.05, power=0.8, discordance=0.2)
    # z_{1 - 0.05/3} = 2.12805, z_{0.8} = 0.84162; sigma = sqrt(0.2); MDE = 2.96967 * 0.44721 / sqrt(128)
    assert mde(c, 128) == pytest.approx(2.96967 * math.sqrt(0.2) / math.sqrt(128), abs=1e-4)
    assert mde(c, 128) == pytest.approx(0.1174, abs=1e-4)
    # power at +0.10: Phi(0.10 * sqrt(128) / sqrt(0.2) - 2.12805) = Phi(0.40178) = 0.6561
    assert power(c, 128, 0.10) == pytest.approx(0.6561, abs=1e-3)
    # the exact paired binomial power lands near the normal figure for this case (p10 = 0.15, p01 = 0.05)
    assert exact_power(128, 0.15, 0.05, 0.05 / 3) == pytest.approx(0.656, abs=0.06)


def test_budget_buys_rounds_and_warns_when_the_effect_is_out_of_reach():
    p = plan(PlanConfig(tasks=128, accept="paired", rounds=8, proposals=3, max_rollouts=2000, effect=0.05))
    assert p.per_candidate == 128 and p.rollouts_per_round == 384
    assert p.rounds == 4 and p.rollouts == 128 + 4 * 384  # (2000 - 128) // 384 = 4
    assert any("4 of the 8 rounds" in w for w in p.warnings)
    assert any("cannot reliably detect +0.050" in w for w in p.warnings) and p.power_at_effect < 0.8
    dollars = plan(PlanConfig(tasks=128, max_cost=1.0, cost_per_rollout=0.001))
    assert dollars.budget_rollouts == 1000
    fine = plan(PlanConfig(tasks=128, accept="paired", effect=0.2, discordance=0.2))
    assert not fine.warnings and fine.power_at_effect > 0.8



def test_too_few_tested_tasks_means_no_accept_not_a_normal_approximation():
    from harnessx.search.planner import min_pairs
    from harnessx.stats.paired import paired_test
    # the one-sided sign-flip test's smallest p on N tasks is 2^-N: 2^-4 = 0.0625 >= 0.05 > 2^-5 = 0.03125,
    # and at alpha / 3 (paired, K = 3): 2^-5 = 0.031 >= 0.0167 > 2^-6 = 0.0156
    assert min_pairs(PlanConfig(tasks=10, accept="paired", proposals=1)) == 5
    assert min_pairs(PlanConfig(tasks=10, accept="paired", proposals=3)) == 6
    assert paired_test([1] * 4, [0] * 4).p_value == pytest.approx(2 ** -4)  # the test the rules use
    assert paired_test([1] * 5, [0] * 5).p_value == pytest.approx(2 ** -5)
    # one proposal on 4 tasks: no accept is possible, said as such, never an MDE from the approximation
    p = plan(PlanConfig(tasks=4, accept="paired", proposals=1, effect=0.2))
    assert (p.tested_tasks, p.mde, p.power_at_effect) == (4, math.inf, 0.0)
    assert "none (too few tasks)" in p.lines()[1] and "no proposal can be accepted" in p.warnings[0]
    # 5 tasks: the approximation applies again
    assert plan(PlanConfig(tasks=5, accept="paired", proposals=1)).mde == pytest.approx(
        mde(PlanConfig(tasks=5, accept="paired", proposals=1), 5))
    # paired on 5 tasks at alpha / 3
    assert plan(PlanConfig(tasks=5, accept="paired", proposals=3)).mde == math.inf
    assert plan(PlanConfig(tasks=6, accept="paired", proposals=3)).mde < math.inf
    # greedy accepts on the raw mean, without a test: no such warning
    assert not plan(PlanConfig(tasks=5, proposals=3, accept="greedy")).warnings


def test_bad_plan_input_is_one_clear_error():
    with pytest.raises(InputError, match="--alpha"):
        PlanConfig(tasks=10, alpha=1.5)
    with pytest.raises(InputError, match="per-rollout cost"):
        PlanConfig(tasks=10, max_cost=5.0)


def test_cli_plan_prints_budget_mde_and_warning(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoint.json").write_text(json.dumps({"spent": {"a": 0.002, "b": 0.004}}))
    result = CliRunner().invoke(app, ["plan", "--tasks", "128", "--accept", "paired", "--effect", "0.05", "--max-cost", "3",
                                      "--from-run", str(run)])
    assert result.exit_code == 0, result.output
    assert "1000 rollouts ($3.00 at $0.00300 per rollout)" in result.output
    assert "minimum detectable effect +0.186" in result.output and "WARNING" in result.output
    bad = CliRunner().invoke(app, ["plan", "--tasks", "128", "--accept", "nope"])
    assert bad.exit_code == 2 and "--accept" in bad.output
