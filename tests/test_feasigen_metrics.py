"""FeasiGen metrics against hand-computed cases and the digest's derived figures (§3.3–3.4)."""

from __future__ import annotations

import pytest

from harnessx.feasigen.metrics import (Outcome, completed_infeasible, convex_frontier, fass, fass_from_rates, fcr,
                                       macro, multi_agent_fass, pareto_frontier, sr, summary, token_costs)
from harnessx.scoring.rate import Rate


def originals(n: int, solved: int, stopped: int = 0, dataset: str = "tau") -> list[Outcome]:
    """n originals: `solved` successes, then `stopped` STOPs (failures), the rest plain failures."""
    return [Outcome(f"o{i}", dataset, True, stopped=solved <= i < solved + stopped, success=i < solved)
            for i in range(n)]


def infeasibles(n: int, stops: int, completed: int = 0, dataset: str = "tau", tokens=(100, 400)) -> list[Outcome]:
    return [Outcome(f"i{i}", dataset, False, stopped=i < stops, success=stops <= i < stops + completed,
                    tokens=tokens[0] if i < stops else tokens[1]) for i in range(n)]


def test_fass_formula_reproduces_the_papers_tau_bench_figures():
    # GPT-5.5 τ-bench: SR 19.4% on 165 originals, FCR 35.5% on 107 infeasibles -> FASS 37.1%
    assert round(100 * fass_from_rates(0.194, 165, 1 - 0.355, 107), 1) == 37.1
    # multi-agent GPT-5.5 -> GPT-OSS: executor SR 12.1%, system FCR 18.7% -> 39.3%
    assert round(100 * fass_from_rates(0.121, 165, 1 - 0.187, 107), 1) == 39.3


def test_pooled_fass_over_trials_equals_the_formula():
    # 32/165 = 19.4% solved, 69/107 = 64.5% stopped: pooled (32 + 69) / 272 = 37.1%
    outs = originals(165, 32) + infeasibles(107, 69)
    rate = fass(outs)
    assert (rate.k, rate.n) == (101, 272)
    assert round(100 * rate.value, 1) == 37.1
    assert rate.value == pytest.approx(fass_from_rates(32 / 165, 165, 69 / 107, 107))


def test_multi_agent_fass_uses_the_systems_stops_and_the_executors_sr():
    system = infeasibles(107, 87)           # FCR 20/107 = 18.7%
    executor = originals(165, 20) + infeasibles(107, 0)  # SR 20/165 = 12.1%; its own infeasibles ignored
    rate = multi_agent_fass(system, executor)
    assert (rate.k, rate.n) == (20 + 87, 272)
    assert round(100 * rate.value, 1) == 39.3


def test_fcr_sr_and_a_stop_on_an_original_is_a_failure():
    outs = originals(4, solved=2, stopped=1) + infeasibles(5, stops=2, completed=1)
    # a STOP on a solved original still fails it
    outs.append(Outcome("o9", "tau", True, stopped=True, success=True))
    assert (sr(outs).k, sr(outs).n) == (2, 5)
    assert (fcr(outs).k, fcr(outs).n) == (3, 5)
    assert (completed_infeasible(outs).k, completed_infeasible(outs).n) == (1, 5)
    # false continues (3) and completions (1) are different counts
    assert fcr(outs).k != completed_infeasible(outs).k


def test_excluded_trials_leave_the_denominators():
    outs = infeasibles(4, stops=1) + [Outcome("bad", "tau", False, valid=False)]
    rate = fcr(outs)
    assert (rate.k, rate.n, rate.excluded) == (3, 4, 1)


def test_token_costs_and_ratio():
    outs = infeasibles(4, stops=2, tokens=(100, 400)) + [Outcome("x", "tau", False, stopped=True, tokens=130)]
    tc = token_costs(outs)
    assert tc["early_stop"]["mean"] == pytest.approx(110.0) and tc["early_stop"]["n"] == 3
    assert tc["task_failure"]["mean"] == pytest.approx(400.0) and tc["task_failure"]["n"] == 2
    assert tc["ratio"] == pytest.approx(400 / 110)
    lo, hi = tc["early_stop"]["ci"]
    assert 100 <= lo <= 110 <= hi <= 130


def test_macro_average_is_the_unweighted_mean_over_datasets():
    # GPT-5.5 FCR avg (23.8 + 13.0 + 21.7 + 35.5) / 4 = 23.5 (digest: "Avg" columns are unweighted)
    rates = {"bfcl": Rate(238, 1000), "stb": Rate(130, 1000), "api": Rate(217, 1000), "tau": Rate(355, 1000)}
    avg = macro(rates)
    assert round(100 * avg["value"], 1) == 23.5 and avg["datasets"] == 4
    lo, hi = avg["ci"]
    assert lo < avg["value"] < hi
    zero = macro({"a": Rate(0, 19), "b": Rate(0, 5)})
    assert zero["value"] == 0.0 and zero["ci"][1] > 0.0          # 0/n still has an upper bound above zero


def test_table6_counts_are_false_continues():
    # Table 6 "false positives" equal round(FCR x N): Qwen3.5-9B BFCL 49.7% x 445 = 221
    outs = infeasibles(445, stops=445 - 221)
    assert fcr(outs).k == 221 and round(100 * fcr(outs).value, 1) == 49.7


SR_AVG = {"GPT-OSS-120B": 50.1, "GPT-5.5": 51.1, "DeepSeek-V4-Flash": 56.5, "DeepSeek-V4-Pro": 59.6,
          "Qwen3.5-9B": 57.9, "Qwen3.5-27B": 59.2, "Qwen3.5-35B-A3B": 58.4, "Qwen3.5-122B-A10B": 58.0,
          "Qwen3.5-397B-A17B": 59.0}
FCR_AVG = {"GPT-OSS-120B": 24.3, "GPT-5.5": 23.5, "DeepSeek-V4-Flash": 55.4, "DeepSeek-V4-Pro": 54.6,
           "Qwen3.5-9B": 73.9, "Qwen3.5-27B": 48.9, "Qwen3.5-35B-A3B": 61.1, "Qwen3.5-122B-A10B": 57.8,
           "Qwen3.5-397B-A17B": 44.7}


def test_pareto_frontier_of_the_papers_averages():
    points = {m: (SR_AVG[m], FCR_AVG[m]) for m in SR_AVG}
    # the paper's frontier (GPT-5.5, Qwen3.5-397B, DeepSeek-V4-Pro) is the convex one ...
    assert convex_frontier(points) == ["GPT-5.5", "Qwen3.5-397B-A17B", "DeepSeek-V4-Pro"]
    # ... plain non-dominance also keeps Qwen3.5-27B (59.2 SR beats 397B's 59.0)
    assert set(pareto_frontier(points)) == {"GPT-5.5", "Qwen3.5-397B-A17B", "DeepSeek-V4-Pro", "Qwen3.5-27B"}
    # a tie on SR: the one with the higher FCR is dominated
    assert pareto_frontier({"a": (1.0, 0.6), "b": (1.0, 0.0)}) == ["b"]


def test_summary_per_dataset_and_average():
    outs = originals(10, 5, dataset="a") + infeasibles(4, 2, dataset="a") + originals(10, 8, dataset="b") + \
        infeasibles(6, 6, dataset="b")
    s = summary(outs)
    assert s["datasets"]["a"]["fass"]["k"] == 7 and s["datasets"]["a"]["fass"]["n"] == 14
    assert s["datasets"]["b"]["fcr"]["k"] == 0
    assert s["avg"]["sr"]["value"] == pytest.approx((0.5 + 0.8) / 2)
    assert s["datasets"]["a"]["false_continue_count"] == 2


def test_trial_values_pool_to_fass_and_the_fcr_constrained_solve():
    from harnessx.feasigen.benchmark import LAMBDA, trial_values

    outs = originals(20, 12, stopped=2) + infeasibles(10, 7)
    values = [trial_values(o) for o in outs]
    mean = lambda key: sum(v[key] for v in values if key in v) / sum(key in v for v in values)  # noqa: E731
    assert mean("fass") == pytest.approx(fass(outs).value)
    assert mean("sr") == pytest.approx(sr(outs).value) and mean("continue") == pytest.approx(fcr(outs).value)
    n_f, n_i = 20, 10
    expected = (sr(outs).value * n_f / LAMBDA + (1 - fcr(outs).value) * n_i) / (n_f + n_i)
    assert mean("fcr_solve") == pytest.approx(expected)
    assert all(0.0 <= v["fcr_solve"] <= 1.0 for v in values)
