"""The default rule's minibatch gate (#48 item 2): breadth bought with the screen's rollouts.

With `gate = g`, a round judges screen/g times `--proposals` looks, each first on the screen's first g
tasks against the incumbent on the same tasks; only the best `--proposals` not worse there go on to the
screen and the rungs, and the move is decided as before. Class: a round of many looks where most do
nothing (copies), some hurt and one helps, over seeds; the spend never exceeds the planner's schedule.
"""

from __future__ import annotations

import random

import pytest

from harnessx.errors import InputError
from harnessx.search.explore import Explore, ExploreSettings, climb_rollouts
from harnessx.search.planner import PlanConfig, looks, plan
from test_search_acceptance import evaluation
from test_search_explore import INC, N, TASKS, better, flags, judge


def test_a_gate_buys_screen_over_gate_looks_per_proposal_and_is_checked():
    assert ExploreSettings(gate=0).looks(3) == 3 and ExploreSettings(gate=4).looks(3) == 12
    assert ExploreSettings() == ExploreSettings(gate=4)  # the shipped default (its null control: search_null.py --gate 4)
    assert ExploreSettings(gate=8, screen=16).looks(2) == 4
    for bad in ({"gate": 1}, {"gate": 17}, {"gate": 4, "design": "window"}):
        with pytest.raises(InputError, match="gate"):
            ExploreSettings(**bad)


def test_among_many_looks_the_gain_is_moved_to_mostly_a_copy_never_and_the_spend_stays_within_the_schedule():
    settings, k, moves = ExploreSettings(gate=4), 3, 0
    n_looks = settings.looks(k)
    for seed in range(12):
        rng = random.Random(seed)
        copies = [evaluation(f"copy{i}", TASKS, flags(0.4, 1), flags(0.5, 2)) for i in range(n_looks - 3)]
        worse = [evaluation(f"worse{i}", TASKS, [0] * N, [0] * N) for i in range(2)]
        looks_ = copies + worse
        looks_.insert(rng.randrange(len(looks_) + 1), better("win", 3 + seed))
        verdicts, arena = judge(Explore(settings), INC, *looks_)
        moved = [e.harness.name for e, v in zip(looks_, verdicts) if v.accepted]
        assert moved in ([], ["win"])  # a copy or a loser is never moved to
        moves += moved == ["win"]
        for e, v in zip(looks_, verdicts):
            if e.harness.name.startswith("worse"):
                assert "gate" in v.reason and not v.undecided  # worse on the minibatch: never past the gate
        spent = sum(len(ids) for h, ids in arena.paid_ids.items() if h != INC.harness.hash)  # distinct (task) rollouts
        assert spent <= climb_rollouts(settings, 2 * N, k)
    # a +0.2..0.3 gain ties the incumbent on 4 tasks in about a third of the seeds, and ties go on in the
    # proposer's order: the gate's price (8 of 12 here)
    assert moves >= 8


def test_the_planner_counts_the_looks_and_their_minibatches():
    base, gated, tied = ExploreSettings(gate=0), ExploreSettings(gate=4, tie_tasks=0), ExploreSettings(gate=4)
    assert climb_rollouts(gated, 128, 3) == climb_rollouts(base, 128, 3) + (12 - 3) * 4
    # the default's tie-break: each look the gate cuts may be ranked on 8 more tasks
    assert tied.tie_tasks == 8 and climb_rollouts(tied, 128, 3) == climb_rollouts(base, 128, 3) + (12 - 3) * (4 + 8)
    assert looks(PlanConfig(tasks=128, accept="greedy", proposals=3)) == 3
    assert plan(PlanConfig(tasks=128, accept="default", rounds=2)).cap == 128 * (1 + 2 * looks(
        PlanConfig(tasks=128, accept="default")))
