"""The planner describes the default rule (`explore`) as it behaves, and its rollout figure is the
one the search's pre-flight prints (hand-computed cases)."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.search.explore import ExploreSettings, climb_rollouts
from harnessx.search.planner import PlanConfig, plan, rollout_line


def test_explore_schedule_and_move_power_by_hand():
    # 128 tasks, K = 3, screen 16, promote: 3 x 16 screened, then one climber on the other 112 tasks
    # (rungs 48, 80, 128) = 160 per round; R0 + 6 rounds = 128 + 960 = 1088; cap 128 x 19 = 2432
    p = plan(PlanConfig(tasks=128, rounds=6, proposals=3, accept="default"))
    assert (p.rollouts_per_round, p.rollouts, p.cap) == (160, 1088, 2432)
    assert "up to 1088 rollouts" in rollout_line(p) and "futility stops" in rollout_line(p)
    # halving: rungs 16, 48, 80, 128 with 3, 2, 1, 1 climbers = 48 + 64 + 32 + 48 = 192
    assert climb_rollouts(ExploreSettings(design="halving"), 128, 3) == 192
    # the move's "MDE": one-sided level move_p = 0.3, power 0.8, discordance 0.5, 128 tasks:
    # (z_0.7 + z_0.8) sqrt(0.5) / sqrt(128) = (0.52440 + 0.84162) x 0.70711 / 11.31371 = 0.08538
    assert p.mde == pytest.approx(0.08538, abs=1e-4)
    moves = p.moves_line()
    assert moves.startswith("moves: default screens each proposal on 16 tasks") and "p < 0.3" in moves
    assert "a move, not a test" in moves and "+0.085 with probability 0.80" in moves
    assert "alpha 0.05/3" not in "\n".join(p.lines())
    assert plan(PlanConfig(tasks=128, accept="explore")).rollouts_per_round == 160
    # a split no larger than the screen: only the screen is paid
    assert climb_rollouts(ExploreSettings(), 12, 3) == 36 and not math.isnan(plan(PlanConfig(tasks=12)).rollouts)


def test_pre_flight_prints_the_planners_figure_for_the_default_and_the_search_stays_within_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # toy, 4 sources = 12 tasks (under the screen's 16), 2 rounds of 3: 3 x 12 per round = 36;
    # R0 + 2 x 36 = 84 = the cap 12 x 7
    out = CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "2", "--no-mlflow", "--name", "s"])
    assert out.exit_code == 0, out.output
    flat = " ".join(out.output.split())
    assert "up to 84 rollouts (rule default's schedule, 36 per round" in flat and "at most 84" in flat
    summary = json.loads((tmp_path / "runs" / "s" / "summary.json").read_text())
    assert summary["accept"] == "explore" and summary["proposer"] == "bandit" and summary["rollouts"] <= 84
    planned = CliRunner().invoke(app, ["plan", "--env", "toy", "--rounds", "2"])
    assert planned.exit_code == 0 and "up to 84 rollouts" in " ".join(planned.output.split())
