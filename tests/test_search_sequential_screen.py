"""`sequential`'s screen-then-confirm design: the screen picks one challenger, only fresh tasks test
it, an extra seed is bought only while it is promising, and copies are accepted at most alpha of
the rounds (Monte Carlo on constructed outcomes)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from harnessx.evaluation import Evaluation
from harnessx.scoring import Scorecard
from harnessx.search import acceptance
from harnessx.search.screening import confirm_rungs
from harnessx.search.sequential import Sequential
from test_search_acceptance import FakeArena, evaluation, make_tasks

N = 40          # per stratum: 80 tasks, screen on the first 16 (a fifth), confirm on the other 64
TASKS = make_tasks(N)


class SeededArena(FakeArena):
    """FakeArena plus evaluations on extra seeds (`extra[(name, seed)]`)."""

    def __init__(self, evals: dict[str, Evaluation], extra: dict[tuple[str, int], Evaluation] | None = None):
        super().__init__(evals)
        self.extra, self.seeds = extra or {}, [0]

    async def evaluate_on(self, harness, tasks, seeds=None):
        if seeds is None:
            return await super().evaluate_on(harness, tasks)
        ev = self.extra[(harness.name, seeds[0])]
        keep = {t.id for t in tasks}
        scores = [s for s in ev.scores if s.task_id in keep]
        self.served.append((harness.name, f"seed {seeds[0]}"))
        return Evaluation(ev.harness, tuple(t for t in ev.tasks if t.id in keep), tuple(seeds), (), tuple(scores),
                          Scorecard.from_scores(scores))


ORDER = SeededArena({"x": evaluation("x", TASKS, [0] * N, [0] * N)}).tasks  # the arena's stratified order


def flags(ids: set[str]) -> tuple[list[int], list[int]]:
    """(blocked, feasible) success flags: success exactly on the task ids given."""
    return ([int(f"b{i}" in ids) for i in range(N)], [int(f"f{i}" in ids) for i in range(N)])


def run(rule, incumbent, proposals, extra=None, round_no=1):
    evals = {"inc": evaluation("inc", TASKS, *incumbent)}
    evals.update({name: evaluation(name, TASKS, *f) for name, f in proposals.items()})
    arena = SeededArena({ev.harness.hash: ev for ev in evals.values()},
                        {(name, seed): evaluation(name, TASKS, *f) for (name, seed), f in (extra or {}).items()})
    arena.round = round_no
    verdicts = asyncio.run(rule.judge(evals["inc"].harness, [evals[n].harness for n in proposals], arena))
    return verdicts, arena


def test_rungs():
    assert confirm_rungs(16, 80) == [32, 48, 80] and confirm_rungs(10, 48) == [20, 30, 48]


def test_screen_picks_the_best_and_tests_it_on_the_confirmation_tasks_only():
    screen, rest = {t.id for t in ORDER[:16]}, {t.id for t in ORDER[16:]}
    none = flags(set())
    verdicts, arena = run(Sequential(extra_seeds=0), none, {"copy": none, "win": flags(screen | rest)})
    copy, win = verdicts
    assert win.accepted and win.mean_diff == 1.0 and "64 fresh" in win.reason   # Δ on the 64 fresh tasks
    assert not copy.accepted and not copy.undecided and "not chosen" in copy.reason
    assert max(n for name, n in arena.served if name == "copy") == 16            # the loser paid the screen only


def test_a_rotating_screen_window_moves_with_the_round_and_the_test_keeps_to_the_rest():
    """Round 3 screens on ORDER[32:48]. "early" gains only on round 1's window, "late" everywhere but
    there: round 3 chooses "late" and tests it on the 64 other tasks (ORDER[48:] + ORDER[:32])."""
    window1 = {t.id for t in ORDER[:16]}
    none = flags(set())
    proposals = {"early": flags(window1), "late": flags({t.id for t in ORDER} - window1)}
    verdicts, arena = run(Sequential(extra_seeds=0, rotate=True), none, proposals, round_no=3)
    early, late = verdicts
    assert late.accepted and "64 fresh" in late.reason and late.mean_diff == 0.75  # 48 of its 64 test tasks
    assert {n for name, n in arena.served if name == "early"} == {16}             # the screen only
    assert not early.accepted and "proposal 1 was ahead" in early.reason  # round 3's window shows it no gain
    # the same proposals in round 1, or in round 3 with rotate off (the default): the first window
    # decides, and "early" has nothing on its fresh tasks
    for rule, round_no in ((Sequential(extra_seeds=0, rotate=True), 1), (Sequential(extra_seeds=0), 3)):
        (e, l), _ = run(rule, none, proposals, round_no=round_no)
        assert not e.accepted and not l.accepted and "stopped" in e.reason


def test_rotated_orders_keep_pairs_and_wrap():
    arena = SeededArena({"x": evaluation("x", TASKS, [0] * N, [0] * N)})
    assert arena.rotated(0) == ORDER and arena.rotated(80) == ORDER
    assert arena.rotated(16) == ORDER[16:] + ORDER[:16]
    assert arena.rotated(17) == arena.rotated(16)        # rounded down to a whole blocked-feasible pair
    assert arena.rotated(96) == arena.rotated(16)        # wraps around the split
    for k in (2, 18, 50):
        strata = [t.stratum for t in arena.rotated(k)]
        assert all(strata[i] != strata[i + 1] for i in range(0, 78, 2))  # every even prefix is balanced


def test_a_resumed_rule_remembers_what_it_confirmed():
    """`restore` rebuilds the confirmed (incumbent, challenger) pairs from a ledger, and the restored
    rule then gives the round to another proposal, as the uninterrupted one would."""
    screen, rest = {t.id for t in ORDER[:16]}, {t.id for t in ORDER[16:]}
    none = flags(set())
    proposals = {"lead": flags(screen), "next": flags(set(list(screen)[:4]) | rest)}
    (lead, nxt), _ = run(Sequential(extra_seeds=0), none, proposals)
    assert "stopped" in lead.reason and not nxt.accepted            # a fresh rule confirms "lead"
    inc_hash = evaluation("inc", TASKS, *none).harness.hash
    lead_hash = evaluation("lead", TASKS, *proposals["lead"]).harness.hash
    rule = Sequential(extra_seeds=0)
    rule.restore([{"parent": None, "hash": inc_hash, "stage": "full"},
                  {"parent": inc_hash, "hash": lead_hash, "stage": "32/80 tasks"},
                  {"parent": inc_hash, "hash": "other", "stage": "screen 16/80 tasks"}])
    assert rule.tested == {(inc_hash, lead_hash)}
    (lead, nxt), _ = run(rule, none, proposals)
    assert "already confirmed" in lead.reason and nxt.accepted


def test_gains_on_the_screening_tasks_alone_are_never_accepted():
    screen = {t.id for t in ORDER[:16]}
    verdicts, _ = run(Sequential(extra_seeds=1), flags(set()), {"lucky": flags(screen), "other": flags(set())})
    lucky = verdicts[0]
    assert not lucky.accepted and "stopped" in lucky.reason  # chosen by the screen, then nothing on fresh tasks


def test_an_extra_seed_only_while_promising_and_the_looks_share_alpha():
    conf = [t.id for t in ORDER[16:]]
    # on the 64 confirmation tasks: 6 gains, 1 loss -> one-sided p ~ 0.06: not significant at 0.025,
    # promising (< 0.3): the extra seed (8 gains, 0 losses on the confirmation tasks) decides at look 2
    inc = flags({conf[10]})
    mid = flags(set(conf[:6]) | {ORDER[0].id})  # ahead on the screen by one task
    extra = {("inc", 1): flags(set()), ("mid", 1): flags(set(conf[20:28]))}
    extra[("same", 1)] = flags(set())
    (verdict, _), arena = run(Sequential(extra_seeds=1), inc, {"mid": mid, "same": inc}, extra)
    assert verdict.accepted and "look 2/2" in verdict.reason and ("mid", "seed 1") in arena.served
    assert "128 fresh (task, seed) samples" in verdict.reason  # 64 confirmation tasks x 2 seeds
    assert verdict.p_value < 0.025 and verdict.p_adjusted == min(1.0, 2 * verdict.p_value)
    # hopeless at look 1 (p >= 0.3): no extra seed is bought
    weak = flags({conf[0], conf[1], ORDER[0].id})
    inc2 = flags({conf[5]})
    (v2, _), arena2 = run(Sequential(extra_seeds=1), inc2, {"weak": weak, "same": inc2},
                          {("inc", 1): flags(set()), ("weak", 1): flags(set()), ("same", 1): flags(set())})
    assert not v2.accepted and v2.undecided and not any(s == "seed 1" for _, s in arena2.served)


def test_an_extra_seed_never_revisits_the_screens_tasks():
    """The challenger was chosen for its lead on the screen's tasks: a new seed there would test the
    edit where it was selected. Gains at the extra seed on those tasks alone change nothing, and
    the extra seed is paid on the 64 confirmation tasks only."""
    conf, screen = [t.id for t in ORDER[16:]], {t.id for t in ORDER[:16]}
    inc = flags({conf[10]})
    mid = flags(set(conf[:6]) | {ORDER[0].id})  # promising, undecided at look 1 (as above)
    extra = {("inc", 1): flags(set()), ("mid", 1): flags(screen), ("same", 1): flags(set())}
    (verdict, _), _ = run(Sequential(extra_seeds=1), inc, {"mid": mid, "same": inc}, extra)
    assert not verdict.accepted and "look 2/2" in verdict.reason
    assert "128 fresh (task, seed) samples" in verdict.reason  # not 64 + 80
    assert verdict.p_value == pytest.approx(run(Sequential(extra_seeds=1), inc, {"mid": mid, "same": inc},
                                                {**extra, ("mid", 1): flags(set())})[0][0].p_value)


@pytest.mark.slow
def test_copies_are_accepted_in_at_most_alpha_of_rounds(monkeypatch):
    """K = 3 copies of the incumbent, every (task, seed) an independent coin at 0.5 (no pairing):
    the round's acceptance rate stays at or below alpha = 0.05 (3 SE of Monte Carlo slack)."""
    monkeypatch.setattr(acceptance, "RESAMPLES", 400)  # p resolution 0.0025, well below alpha / 2
    rng = np.random.default_rng(11)
    reps, hits = 150, 0
    for _ in range(reps):
        draw = lambda: (list(rng.integers(0, 2, N)), list(rng.integers(0, 2, N)))  # noqa: E731
        proposals = {f"c{k}": draw() for k in range(3)}
        extra = {(name, 1): draw() for name in ("inc", *proposals)}
        verdicts, _ = run(Sequential(extra_seeds=1), draw(), proposals, extra)
        hits += any(v.accepted for v in verdicts)
    assert hits / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)
