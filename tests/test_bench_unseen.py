"""The `unseen` design of bench/search_efficiency.py (bench/unseen_move.py): the screen still picks
the climber, but the move is tested on the tasks the round's screen did not see."""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from unseen_move import UnseenMove  # noqa: E402
from test_search_acceptance import FakeArena, evaluation, make_tasks  # noqa: E402

from harnessx.search.explore import Explore  # noqa: E402

N = 40
TASKS = make_tasks(N)


def flags(rate: float, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [int(rng.random() < rate) for _ in range(N)]


INC = evaluation("inc", TASKS, flags(0.4, 1), flags(0.5, 2))


def screen_only_gain():
    """The incumbent's outcomes, with every screen task a success and one more gain, on the first
    failing task of the order outside the screen (so the climber stays ahead at every rung)."""
    screen, order = Explore().window(FakeArena({INC.harness.hash: INC}), INC)
    success = INC.per_task_success()
    gains = {t.id for t in screen} | {next(t.id for t in order if t not in screen and success[t.id] < 1)}
    blocked, feasible = flags(0.4, 1), flags(0.5, 2)
    for tid in gains:
        (feasible if tid.startswith("f") else blocked)[int(tid[1:])] = 1
    return evaluation("screen-only", TASKS, blocked, feasible), {t.id for t in screen}


def test_a_gain_seen_only_on_the_screen_moves_the_shipped_rule_but_not_unseen():
    challenger, screen = screen_only_gain()

    def verdict(rule):
        arena = FakeArena({e.harness.hash: e for e in (INC, challenger)})
        (v,) = asyncio.run(rule.judge(INC.harness, [challenger.harness], arena))
        return v

    shipped, unseen = verdict(Explore()), verdict(UnseenMove())
    assert shipped.accepted and shipped.p_value < 0.3
    assert not unseen.accepted and unseen.undecided and unseen.p_value >= 0.3
    assert "mean Δ = +0.016" in unseen.reason  # 1 gain over the 64 tasks outside the 16-task screen
    assert len(screen) == 16


def test_unseen_refuses_the_window_design_which_has_no_screen():
    with pytest.raises(ValueError, match="no screen"):
        UnseenMove(design="window")
