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
    # 128 tasks, K = 3, screen 16, gate 4, tie-break 8, halving: 16/4 x 3 = 12 looks on 4 tasks (48), at
    # most the 9 not kept re-ranked on 8 more (72), the best 3 on the screen's other 12 (36), then rungs 48,
    # 80, 128 with 2, 1, 1 climbers (64 + 32 + 48): 48 + 72 + 36 + 144 = 300 per round; R0 + 6 rounds =
    # 128 + 1800 = 1928; cap 128 x (1 + 6 x 12) = 9344
    p = plan(PlanConfig(tasks=128, rounds=6, proposals=3, accept="default"))
    assert (p.rollouts_per_round, p.rollouts, p.cap) == (300, 1928, 9344)
    assert "up to 1928 rollouts" in rollout_line(p) and "futility stops" in rollout_line(p)
    assert "(12 looks a round, each first on a 4-task minibatch)" in rollout_line(p)
    # without the tie-break, the 228 of the default before it; without the gate: halving 3 x 16 + 64 + 32 + 48 = 192; promote: 3 x 16 + 112 = 160
    assert climb_rollouts(ExploreSettings(tie_tasks=0), 128, 3) == 228
    assert climb_rollouts(ExploreSettings(gate=0), 128, 3) == 192
    assert climb_rollouts(ExploreSettings(design="promote", gate=0), 128, 3) == 160
    # the move's "MDE": one-sided level move_p = 0.5, power 0.8, discordance 0.5, 128 tasks:
    # (z_0.5 + z_0.8) sqrt(0.5) / sqrt(128) = (0 + 0.84162) x 0.70711 / 11.31371 = 0.05260
    assert p.mde == pytest.approx(0.05260, abs=1e-4)
    moves = p.moves_line()
    assert moves.startswith("moves: default gates 12 looks a round on 4 tasks each, screens the best 3 on 16 tasks")
    assert "better half at each rung" in moves and "p < 0.5" in moves
    assert "a move, not a test" in moves and "+0.053 with probability 0.80" in moves
    assert "alpha 0.05/3" not in "\n".join(p.lines())
    assert plan(PlanConfig(tasks=128, accept="explore")).rollouts_per_round == 300
    # a split no larger than the screen: only the gate, the tie-break (at most the 12-task screen) and the
    # screen are paid (12 x 4 + 9 x 8 + 3 x 8 = 144; without the tie-break 12 x 4 + 3 x 8 = 72)
    assert climb_rollouts(ExploreSettings(), 12, 3) == 144 and climb_rollouts(ExploreSettings(tie_tasks=0), 12, 3) == 72
    # on 8 tasks the gate and the tie-break together take at most the 8-task screen: every look on all 8
    assert climb_rollouts(ExploreSettings(), 8, 3) == 12 * 8 and not math.isnan(plan(PlanConfig(tasks=12)).rollouts)


def test_pre_flight_prints_the_planners_figure_for_the_default_and_the_search_stays_within_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # toy, 4 sources = 12 tasks (under the screen's 16), 2 rounds of 3: 12 looks on 4 tasks, at most
    # the 9 not kept re-ranked on the other 8 (the tie-break's 8 = the rest of the screen), the best 3 on
    # them = 48 + 72 + 24 = 144 per round; R0 + 2 x 144 = 300, the cap 12 x (1 + 2 x 12) = 300
    out = CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "2", "--no-mlflow", "--name", "s"])
    assert out.exit_code == 0, out.output
    flat = " ".join(out.output.split())
    assert "up to 300 rollouts (rule default's schedule, 144 per round" in flat and "at most 300" in flat
    summary = json.loads((tmp_path / "runs" / "s" / "summary.json").read_text())
    assert summary["accept"] == "explore" and summary["proposer"] == "bandit" and summary["rollouts"] <= 300
    planned = CliRunner().invoke(app, ["plan", "--env", "toy", "--rounds", "2"])
    assert planned.exit_code == 0 and "up to 300 rollouts" in " ".join(planned.output.split())
