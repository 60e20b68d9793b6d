"""`stack`: a move is provisional, only a settlement on the tasks the window did not use commits,
a failed stack goes back to the confirmed harness, the window moves on, a resumed rule replays its
window, and stacks of copies are committed in at most alpha of the settlements (Monte Carlo)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from harnessx.errors import InputError
from harnessx.search import acceptance
from harnessx.search.stacking import SETTLE_STAGE, Stacking
from test_search_acceptance import evaluation
from test_search_sequential_screen import N, ORDER, TASKS, SeededArena, flags

WINDOW, REST = {t.id for t in ORDER[:16]}, {t.id for t in ORDER[16:]}  # 80 tasks: a window of 16


def arena_of(**outcomes) -> tuple[SeededArena, dict]:
    evals = {name: evaluation(name, TASKS, *f) for name, f in outcomes.items()}
    return SeededArena({ev.harness.hash: ev for ev in evals.values()}), {n: ev.harness for n, ev in evals.items()}


def judge(rule, arena, incumbent, *proposals):
    return asyncio.run(rule.judge(incumbent, list(proposals), arena))


def settle(rule, arena, working, confirmed, round_no=2, final=False):
    return asyncio.run(rule.settle(working, confirmed, arena, round_no, final))


def test_a_move_is_provisional_and_the_stack_is_committed_on_the_other_tasks():
    none = flags(set())
    arena, h = arena_of(inc=none, copy=none, win=flags(WINDOW | REST))
    rule = Stacking()
    copy, win = judge(rule, arena, h["inc"], h["copy"], h["win"])
    assert win.provisional and not win.accepted and win.p_value is None and "unconfirmed" in win.reason
    assert not copy.provisional and not copy.accepted
    assert settle(rule, arena, h["win"], h["inc"], round_no=1) is None  # every=2: not due after round 1
    out = settle(rule, arena, h["win"], h["inc"])
    assert out.verdict.accepted and out.incumbent is h["win"] and out.verdict.stage == f"{SETTLE_STAGE} full"
    assert out.verdict.mean_diff == 1.0 and "64 tasks the window did not use" in out.verdict.reason
    assert rule.confirmed == h["win"].hash and rule.window == 1
    assert settle(rule, arena, h["win"], h["win"], final=True) is None  # nothing to test


def test_a_stack_that_gains_only_on_its_window_goes_back_to_the_confirmed_harness():
    arena, h = arena_of(inc=flags(set()), lucky=flags(WINDOW))
    rule = Stacking()
    assert judge(rule, arena, h["inc"], h["lucky"])[0].provisional
    out = settle(rule, arena, h["lucky"], h["inc"], round_no=1, final=True)  # final: due whatever the round
    assert not out.verdict.accepted and out.incumbent is h["inc"] and rule.confirmed == h["inc"].hash
    assert "back to the confirmed harness" in out.verdict.reason and out.verdict.stage == f"{SETTLE_STAGE} 32/80 tasks"
    assert max(n for name, n in arena.served if name == "lucky") == 32  # the futility look stopped it after one rung


def test_a_round_without_a_move_moves_the_window_on():
    """"late" gains only on the second block: invisible in round 1, moved to in round 2."""
    second = {t.id for t in ORDER[16:32]}
    arena, h = arena_of(inc=flags(set()), late=flags(second))
    rule = Stacking()
    assert not judge(rule, arena, h["inc"], h["late"])[0].provisional and rule.window == 1
    assert judge(rule, arena, h["inc"], h["late"])[0].provisional and rule.window == 1  # a stack keeps its window


def test_a_harmful_proposal_is_refuted_on_the_window():
    arena, h = arena_of(inc=flags(WINDOW), bad=flags(set()))
    verdict = judge(Stacking(), arena, h["inc"], h["bad"])[0]
    assert not verdict.provisional and not verdict.undecided and "dropped" in verdict.reason


def test_restore_replays_the_window_and_the_confirmed_harness():
    row = lambda r, h, **kw: {"round": r, "hash": h, "stage": "screen 16/80 tasks", "accepted": False, **kw}  # noqa: E731
    history = [row(0, "r0", accepted=True, stage="full"),
               row(1, "a"),                                        # no move from the confirmed harness: +1
               row(2, "b", provisional=True),                      # a move: the stack keeps its window
               row(2, "b", stage=f"{SETTLE_STAGE} full", accepted=True),  # committed: +1
               row(3, "c", provisional=True),
               row(4, "d"),                                        # no move, but a stack is open: no advance
               row(4, "c", stage=f"{SETTLE_STAGE} 32/80 tasks")]   # failed: +1, back to "b"
    rule = Stacking()
    rule.restore(history)
    assert (rule.window, rule.confirmed) == (3, "b")


def test_bad_options_are_refused():
    with pytest.raises(InputError, match="every"):
        Stacking(every=0)
    with pytest.raises(InputError, match="first"):
        Stacking(first=1.5)


def test_stacks_of_copies_are_committed_in_at_most_alpha_of_settlements(monkeypatch):
    """Three copies of the incumbent a round, every (task, seed) an independent coin at 0.5: a
    settlement commits a stack of copies at most alpha = 0.05 of the time (3 SE of Monte Carlo slack)."""
    monkeypatch.setattr(acceptance, "RESAMPLES", 400)
    rng = np.random.default_rng(5)
    reps, settled, hits = 150, 0, 0
    for _ in range(reps):
        draw = lambda: (list(rng.integers(0, 2, N)), list(rng.integers(0, 2, N)))  # noqa: E731
        arena, h = arena_of(inc=draw(), **{f"c{k}": draw() for k in range(3)})
        rule = Stacking()
        moved = next((p for p, v in zip((h["c0"], h["c1"], h["c2"]),
                                        judge(rule, arena, h["inc"], h["c0"], h["c1"], h["c2"])) if v.provisional), None)
        if moved is not None:
            settled += 1
            hits += settle(rule, arena, moved, h["inc"], final=True).verdict.accepted
    assert settled > reps / 2 and hits / settled <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / settled)


def test_a_stack_already_tested_against_the_confirmed_harness_is_not_moved_to_again():
    arena, h = arena_of(inc=flags(set()), lucky=flags(WINDOW))
    rule = Stacking()
    judge(rule, arena, h["inc"], h["lucky"])
    settle(rule, arena, h["lucky"], h["inc"], final=True)  # fails: back to "inc", window 1
    rule.window = 0  # the same window again: the stack would meet the same tasks
    verdict = judge(rule, arena, h["inc"], h["lucky"])[0]
    assert not verdict.provisional and "already tested" in verdict.reason
    replayed = Stacking()
    replayed.restore([{"round": 0, "hash": h["inc"].hash, "stage": "full", "accepted": True, "parent": None},
                      {"round": 1, "hash": h["lucky"].hash, "stage": f"{SETTLE_STAGE} 32/80 tasks", "accepted": False,
                       "parent": h["inc"].hash}])
    assert replayed.tested == rule.tested
