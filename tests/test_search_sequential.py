"""The sequential acceptance rule: the betting e-process (hand-computed path, null calibration by
Ville's inequality), early accept / drop / futility / halving on constructed outcomes, and the
rules proposer bringing undecided edits back while never repeating refuted ones."""

from __future__ import annotations

import numpy as np
import pytest

from harnessx.errors import InputError
from harnessx.search import make_acceptance
from harnessx.search.proposers.rules import RulesProposer
from harnessx.search.evalues import bets, max_wealth, wealth_path
from harnessx.search.sequential import Sequential
from test_search_acceptance import FakeArena, evaluation, make_tasks
from test_search_space import context

N = 40


def test_wealth_path_by_hand():
    d = np.array([1.0, 1.0, -1.0, 0.0])
    # lambda_1 = 0 (no past); lambda_2 = 1 / (1 + 0.25) = 0.8; lambda_3 = 2 / (2 + 0.25) = 8/9; lambda_4 = 1/3.25
    assert bets(d) == pytest.approx([0.0, 0.8, 8 / 9, 1 / 3.25])
    assert wealth_path(d) == pytest.approx([1.0, 1.8, 1.8 / 9, 1.8 / 9])
    assert max_wealth(d) == pytest.approx(1.8) and max_wealth(np.array([])) == 1.0


def test_null_crossings_stay_below_alpha_however_often_one_looks():
    rng = np.random.default_rng(7)
    reps, n, level = 2000, 128, 20.0  # Ville: P(sup_t K_t >= 20) <= 1/20 under E[d] = 0
    d = rng.choice([-1.0, 0.0, 0.0, 1.0], size=(reps, n))  # discordance 0.5, no effect
    crossed = np.mean([max_wealth(row) >= level for row in d])
    assert crossed <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)
    gain = np.where(rng.random((200, n)) < 0.25, 1.0, 0.0) - np.where(rng.random((200, n)) < 0.05, 1.0, 0.0)
    assert np.mean([max_wealth(row) >= level for row in gain]) > 0.9  # a +0.2 effect crosses


def _round(proposals: dict[str, tuple[list[int], list[int]]], incumbent=([0] * N, [0] * N)):
    tasks = make_tasks(N)
    evals = {"inc": evaluation("inc", tasks, *incumbent)}
    evals.update({name: evaluation(name, tasks, *flags) for name, flags in proposals.items()})
    arena = FakeArena({ev.harness.hash: ev for ev in evals.values()})
    harnesses = [evals[n].harness for n in proposals]
    rule = make_acceptance("sequential", design="halving")  # the successive-halving design (screen: its own file)
    import asyncio
    return asyncio.run(rule.judge(evals["inc"].harness, harnesses, arena)), arena


def test_clear_winner_accepted_early_and_a_neutral_copy_is_not_undecided():
    winner = ([1] * N, [1] * N)                      # flips every task
    loser = ([0] * N, [0] * N)                       # the same outcomes as the incumbent
    verdicts, arena = _round({"win": winner, "same": loser}, incumbent=([0] * N, [0] * N))
    win, same = verdicts
    assert win.accepted and win.stage != "full" and len(win.evaluation.tasks) < 2 * N
    assert not same.accepted and not same.undecided
    assert max(n for name, n in arena.served if name == "inc") < 2 * N  # the incumbent only as far as needed


def test_harmful_proposal_is_refuted_and_a_weak_positive_is_undecided():
    incumbent = ([1] * N, [1] * N)
    harmful = ([0] * N, [0] * N)
    weak = ([1] * N, [1] * N)
    verdicts, _ = _round({"harm": harmful, "weak": weak}, incumbent=incumbent)
    harm = verdicts[0]
    assert not harm.accepted and not harm.undecided and "harm e-value" in harm.reason
    # a proposal ahead by one task only: neither accepted nor refuted
    inc = ([0] * N, [0] * N)
    slight = ([1] + [0] * (N - 1), [0] * N)
    (only,), _ = _round({"slight": slight}, incumbent=inc)
    assert not only.accepted and only.undecided and only.mean_diff > 0


def test_sequential_accepts_under_its_alpha_only():
    rule = Sequential(alpha=0.05)
    assert rule.name == "sequential" and make_acceptance("sequential", alpha=0.01).alpha == 0.01
    assert rule.design == "screen" and rule.extra_seeds == 1
    with pytest.raises(InputError, match="design"):
        Sequential(design="bogus")


def test_undecided_edits_come_back_refuted_ones_never():
    ctx = context({"false_abstention": 9, "proceeded": 2})
    first = RulesProposer().propose(ctx, 3)
    rows = [{"round": 1, "slot": 0, "hash": first[0].harness.hash, "edit": first[0].edit, "accepted": False,
             "undecided": True, "stage": "16/128 tasks"},
            {"round": 1, "slot": 1, "hash": first[1].harness.hash, "edit": first[1].edit, "accepted": False,
             "undecided": False, "stage": "16/128 tasks"}]
    again = {p.edit: p for p in RulesProposer().propose(context({"false_abstention": 9, "proceeded": 2}, rows), 3)}
    assert first[0].edit in again and "undecided before" in again[first[0].edit].rationale
    assert again[first[0].edit].harness.hash == first[0].harness.hash  # the same harness: its rollouts are reused
    assert first[1].edit not in again
    # decided on the whole split: the same harness cannot gain evidence, so it does not come back
    rows[0]["stage"] = "full"
    later = RulesProposer().propose(context({"false_abstention": 9, "proceeded": 2}, rows), 3)
    assert first[0].harness.hash not in {p.harness.hash for p in later}
