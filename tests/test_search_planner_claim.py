"""The planner's claim figures, discordance from data, strategies described as they behave, and one
rollout figure for `harnessx plan` and the search's pre-flight, against hand-computed cases."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.search.discordance import ASSUMED, estimate
from harnessx.search.planner import PlanConfig, plan

Z95, Z99, Z80 = 1.64485, 2.32635, 0.84162  # z_{0.95}, z_{0.99}, z_{0.80} from a normal table


@pytest.mark.parametrize(("n", "epochs", "alpha", "d", "by_hand"), [
    (128, 1, 0.05, 0.2, (Z95 + Z80) * (0.2 / 1) ** 0.5 / 128 ** 0.5),   # 2.48647 x 0.44721 / 11.3137 = 0.09829
    (40, 3, 0.05, 0.5, (Z95 + Z80) * (0.5 / 3) ** 0.5 / 40 ** 0.5),     # 2.48647 x 0.40825 / 6.32456 = 0.16050
    (64, 2, 0.01, 0.3, (Z99 + Z80) * (0.3 / 2) ** 0.5 / 64 ** 0.5),     # 3.16797 x 0.38730 / 8 = 0.15337
])
def test_the_claims_mde_by_hand(n, epochs, alpha, d, by_hand):
    # the claim is one one-sided test at alpha (no division by K) on n tasks x E_c seeds
    p = plan(PlanConfig(tasks=100, accept="paired", proposals=3, alpha=alpha, discordance=d, claim_tasks=n, claim_epochs=epochs))
    assert p.claim_mde == pytest.approx(by_hand, abs=1e-4)
    assert p.claim_rollouts == 2 * n * epochs
    assert f"minimum detectable effect {by_hand:+.3f}" in p.claim_line()
    assert f"{n} heldout tasks x {epochs} seed(s)" in p.claim_line()


def test_a_budget_that_cannot_certify_the_effect_says_so():
    p = plan(PlanConfig(tasks=128, accept="paired", discordance=0.2, claim_tasks=128, effect=0.05))
    # power = Phi(0.05 * sqrt(128) / sqrt(0.2) - 1.64485) = Phi(1.26491 - 1.64485) = Phi(-0.37994) = 0.3520
    assert p.claim_power == pytest.approx(0.3520, abs=1e-3)
    # seeds that would: ceil(1 x (0.09829 / 0.05)^2) = ceil(3.864) = 4
    assert any("cannot reliably certify +0.050" in w and "about 4 seeds per task (--certify-epochs)" in w
               for w in p.warnings)
    assert not [w for w in plan(PlanConfig(tasks=128, accept="paired", discordance=0.2, claim_tasks=128, effect=0.15)).warnings
                if "certify" in w]
    tiny = plan(PlanConfig(tasks=128, claim_tasks=4))  # a sign-flip test on 4 tasks has p >= 1/16 > 0.05
    assert any("claim cannot be certified" in w for w in tiny.warnings) and "none (too few tasks)" in tiny.claim_line()
    assert plan(PlanConfig(tasks=128)).claim_line().startswith("claim: not run")


def test_discordance_from_r0s_rollouts_by_hand():
    two = {"a": {0: 1, 1: 1}, "b": {0: 1, 1: 0}, "c": {0: 0, 1: 0}, "d": {0: 0, 1: 1}}
    assert estimate(two, "x").value == pytest.approx(2 / 4)  # b and d disagree
    three = {"a": {0: 1, 1: 0, 2: 1}, "b": {0: 1, 1: 1, 2: 1}}
    assert estimate(three, "x").value == pytest.approx((2 / 3 + 0) / 2)  # a: 2 of its 3 seed pairs differ
    one = {"a": {0: 1}, "b": {0: 0}, "c": {0: 0}, "d": {0: 0}}
    found = estimate(one, "x")
    assert found.value == pytest.approx(2 * 0.25 * 0.75) and "upper bound" in found.source  # p = 1/4
    assert estimate({}, "x") is None and ASSUMED.value == 0.5 and "ASSUMED" in ASSUMED.source


def test_greedy_is_described_as_it_behaves():
    p = plan(PlanConfig(tasks=128, accept="greedy", effect=0.05, claim_tasks=64))
    text = "\n".join(p.lines())
    assert p.lines()[1].startswith("moves: greedy") and "runs no test" in p.lines()[1]
    assert "alpha 0.05/3" not in text and "power to detect" not in text and "detect +0.050 per round" not in text
    assert p.power_at_effect is None and "claim: selected vs R0 on 64" in text  # the only test is the claim's
    paired = plan(PlanConfig(tasks=128, accept="paired")).lines()[1]
    assert "alpha 0.05/3 (one-sided)" in paired and "minimum detectable effect" in paired


def test_pre_flight_prints_the_planners_figure_and_the_search_stays_within_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # toy, 4 sources = 12 tasks, 2 rounds of 3, paired: per round 3 x 12 = 36 (racing only lowers it);
    # up to 12 + 2 x 36 = 84; cap 12 x 7 = 84
    out = CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "2", "--accept", "paired", "--no-mlflow",
                                   "--name", "s"])
    assert out.exit_code == 0, out.output
    flat = " ".join(out.output.split())
    assert "up to 84 rollouts (rule paired's schedule, 36 per round" in flat and "at most 84" in flat
    assert "discordance 0.500: ASSUMED" in flat  # no R0 rollouts before this search
    used = json.loads((tmp_path / "runs" / "s" / "summary.json").read_text())["rollouts"]
    assert used <= 84
    planned = CliRunner().invoke(app, ["plan", "--env", "toy", "--rounds", "2", "--accept", "paired"])
    assert "up to 84 rollouts (rule paired's schedule" in " ".join(planned.output.split())
    # the search's R0 rollouts are in the shared cache now: plan estimates from them (one seed: upper bound)
    assert re.search(r"discordance \d\.\d+: upper bound from R0's rollouts \(the rollout cache\)",
                     " ".join(planned.output.split()))
    from_run = CliRunner().invoke(app, ["plan", "--env", "toy", "--from-run", "runs/s"])
    assert re.search(r"estimated from run s: R0 against its \d+ fully evaluated candidate\(s\), same tasks and seeds",
                     " ".join(from_run.output.split()))


def test_a_pilot_estimates_discordance_and_the_search_reuses_its_rollouts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pilot = CliRunner().invoke(app, ["plan", "--env", "toy", "--pilot"])
    assert pilot.exit_code == 0, pilot.output
    assert "estimated from R0's rollouts (pilot, 2 seeds): disagreement across 2 seeds on 12 tasks" in \
        " ".join(pilot.output.split())
    out = CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "0", "--no-mlflow", "--name", "p"])
    flat = " ".join(out.output.split())
    assert "estimated from R0's rollouts (the rollout cache): disagreement across 2 seeds on 12 tasks" in flat
    assert json.loads((tmp_path / "runs" / "p" / "summary.json").read_text())["model_calls"] == 0  # R0: the pilot's


def test_discordance_from_a_run_pairs_r0_with_its_candidates_by_hand(tmp_path):
    from harnessx.harness.presets import resolve_harness
    from harnessx.search.discordance import from_run
    from harnessx.search.objectives import get_objective

    r0 = resolve_harness("A1")
    r0.save(tmp_path / "r0.yaml")
    (tmp_path / "scores").mkdir()

    def write(name: str, solved: list[bool]) -> None:
        rows = [{"task_id": f"t{i}", "seed": 0, "feasible": True, "family": None, "source_id": f"t{i}",
                 "split": "search", "valid": True, "solved": ok} for i, ok in enumerate(solved)]
        (tmp_path / "scores" / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    write(r0.hash, [True, True, False, False])
    write("a", [True, False, False, True])    # 2 of 4 pairs differ
    write("b", [True, True, False, True])     # 1 of 4
    write("screen", [True])                   # 1 of R0's 4 pairs: a screen, not a full evaluation
    found = from_run(tmp_path, get_objective("joint"))
    assert found.value == pytest.approx((2 / 4 + 1 / 4) / 2) and "2 fully evaluated candidate(s)" in found.source


def test_the_search_pre_flight_says_when_its_budget_cannot_certify_the_effect(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(app, ["search", "--env", "starter", "--rounds", "0", "--no-mlflow", "--name", "e",
                                   "--effect", "0.05", "--certify-epochs", "2"])
    assert out.exit_code == 0, out.output
    flat = " ".join(out.output.split())
    # 20 held-out tasks x 2 seeds at discordance 0.5: MDE = 2.48647 x sqrt(0.5 / 2) / sqrt(20) = 0.27799
    assert "claim: selected vs R0 on 20 heldout tasks x 2 seed(s)" in flat and "effect +0.278" in flat
    assert "WARNING: the claim cannot reliably certify +0.050 on 20 heldout tasks x 2 seed(s)" in flat
