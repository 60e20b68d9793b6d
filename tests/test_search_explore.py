"""The default acceptance rule (`explore`): screen, promote with futility stops, move on modest evidence,
with the harm veto; a copy is not moved to on equal outcomes and never certified by the claim."""

from __future__ import annotations

import asyncio
import random

import pytest

from harnessx.errors import InputError
from harnessx.search import SearchConfig, make_acceptance
from harnessx.search.explore import Explore, ExploreSettings
from harnessx.search.rules import DEFAULT_RULE
from test_search_acceptance import FakeArena, evaluation, make_tasks

N = 40  # per stratum: 80 tasks, 40 blocked-feasible pairs


def flags(rate: float, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [int(rng.random() < rate) for _ in range(N)]


def judge(rule, incumbent, *challengers):
    arena = FakeArena({e.harness.hash: e for e in (incumbent, *challengers)})
    return asyncio.run(rule.judge(incumbent.harness, [c.harness for c in challengers], arena)), arena


TASKS = make_tasks(N)
INC = evaluation("inc", TASKS, flags(0.4, 1), flags(0.5, 2))


def better(name: str, seed: int) -> object:
    """The incumbent's outcomes plus a clear gain: some of its failures become successes."""
    rng = random.Random(seed)
    blocked = [1 if b or rng.random() < 0.5 else 0 for b in flags(0.4, 1)]
    feasible = [1 if f or rng.random() < 0.5 else 0 for f in flags(0.5, 2)]
    return evaluation(name, TASKS, blocked, feasible)


def test_default_is_explore_and_the_shipped_default():
    assert DEFAULT_RULE == "default" and SearchConfig().run.accept == "default"
    assert isinstance(make_acceptance("default"), Explore) and make_acceptance("explore").name == "explore"
    assert make_acceptance("default", design="halving").settings.design == "halving"
    with pytest.raises(InputError, match="design"):
        ExploreSettings(design="bogus")
    with pytest.raises(InputError, match="move_p"):
        ExploreSettings(move_p=0)
    # the shipped default gates its looks on 4-task minibatches; window has no screen to gate
    # the shipped default, chosen on design draws of the world distribution (docs/search-benchmarks.md)
    assert (ExploreSettings().design, ExploreSettings().move_p, ExploreSettings().screen) == ("halving", 0.5, 16)
    assert ExploreSettings().gate == 4 and ExploreSettings(design="window").gate == 0
    assert ExploreSettings(screen=2).gate == 2 and ExploreSettings(gate=0).looks(3) == 3
    assert ExploreSettings().looks(3) == 12
    with pytest.raises(InputError, match="gate"):
        ExploreSettings(design="window", gate=4)


def test_a_copy_with_equal_outcomes_is_never_moved_to_and_stops_at_the_first_rung():
    copy = evaluation("copy", TASKS, flags(0.4, 1), flags(0.5, 2))
    (verdict,), arena = judge(Explore(), INC, copy)
    assert not verdict.accepted and not verdict.undecided and verdict.stage.startswith("rung")
    assert max(n for name, n in arena.served if name == "copy") < 2 * N  # never the whole split


@pytest.mark.parametrize("design", ["promote", "halving"])
def test_a_truly_better_edit_is_moved_to_among_copies_and_losers(design):
    win = better("win", 3)
    copy = evaluation("copy", TASKS, flags(0.4, 1), flags(0.5, 2))
    worse = evaluation("worse", TASKS, [0] * N, [0] * N)
    verdicts, _ = judge(Explore(design=design, gate=0), INC, copy, win, worse)  # the screen and rungs (the gate: test_search_gate.py)
    assert [v.accepted for v in verdicts] == [False, True, False]
    moved = verdicts[1]
    assert moved.stage == "full" and moved.mean_diff > 0 and moved.p_value < 0.3 and "claim" in moved.reason
    assert not verdicts[2].undecided and "stopped at screen" in verdicts[2].reason


def test_the_harm_veto_stops_a_gain_that_costs_a_stratum():
    # every blocked task gained, but feasible tasks lose clearly: joint is ahead, the veto fires
    trade = evaluation("trade", TASKS, [1] * N, [f if i % 4 else 0 for i, f in enumerate([1] * N)])
    inc = evaluation("inc2", TASKS, [0] * N, [1] * N)
    (verdict,), _ = judge(Explore(), inc, trade)
    assert verdict.mean_diff > 0 and not verdict.accepted and "feasible" in verdict.reason


def test_a_small_gain_below_the_bar_is_undecided_not_moved():
    inc = evaluation("inc3", TASKS, [0] * N, [0] * N)
    half = evaluation("half", TASKS, [1 - i % 2 for i in range(N)], [0] * N)  # ahead on 20 of 80 tasks
    (verdict,), _ = judge(Explore(move_p=1e-4), inc, half)  # below the permutation test's resolution
    assert verdict.stage == "full" and verdict.mean_diff > 0 and not verdict.accepted and verdict.undecided


def test_deterministic_verdicts():
    runs = [judge(Explore(), INC, better("a", 5), better("b", 6))[0] for _ in range(2)]
    assert [(v.accepted, v.stage, v.mean_diff, v.p_value, v.reason) for v in runs[0]] == \
        [(v.accepted, v.stage, v.mean_diff, v.p_value, v.reason) for v in runs[1]]


def test_the_screen_is_weighted_to_the_incumbent_s_failing_pairs():
    rule, arena = Explore(), FakeArena({INC.harness.hash: INC})
    screen, order = rule.window(arena, INC)
    success = INC.per_task_success()
    failing = [t for t in screen if success[t.id] < 1]
    assert len(screen) == ExploreSettings.screen and len(failing) >= len(screen) // 2
    assert {t.stratum for t in screen} == {"blocked", "feasible"} and len(order) == 2 * N


def test_window_design_judges_everyone_on_one_blind_rotating_window():
    """`design=window`: the incumbent and every proposal meet on the round's `screen` tasks of the
    rotated order (blind to outcomes: the same tasks whoever failed), the best mean moves on
    p < move_p, a copy and a loser do not, and nothing past the window is paid."""
    rule = Explore(design="window", screen=24, move_p=0.5)
    win, copy = better("win", 3), evaluation("copy", TASKS, flags(0.4, 1), flags(0.5, 2))
    worse = evaluation("worse", TASKS, [0] * N, [0] * N)
    verdicts, arena = judge(rule, INC, copy, win, worse)
    assert [v.accepted for v in verdicts] == [False, True, False]
    assert {v.stage for v in verdicts} == {"window 24/80 tasks"} and "p = " in verdicts[1].reason
    assert "behind" in verdicts[0].reason and "behind" in verdicts[2].reason
    window = [t.id for t in arena.rotated(0)[:24]]
    assert rule.blind_window(arena) == arena.rotated(0)[:24]
    assert {name: n for name, n in arena.served} == {"inc": 24, "copy": 24, "win": 24, "worse": 24}
    assert sorted(t.id for t in rule.blind_window(arena)) == sorted(window)
    arena.round = 2  # the next round's window is the next 24 tasks of the order
    assert [t.id for t in rule.blind_window(arena)] == [t.id for t in arena.rotated(24)[:24]]


def test_window_design_costs_k_plus_one_windows_a_round():
    from harnessx.search.explore import climb_rollouts
    assert climb_rollouts(ExploreSettings(design="window", screen=32), 128, 3) == 4 * 32
    assert climb_rollouts(ExploreSettings(design="window", screen=32), 20, 3) == 4 * 20
