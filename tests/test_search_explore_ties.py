"""The gate's tie-break (`tie_tasks`): on the gate's few tasks most looks read the same mean, and
without it the proposer's order decides which go on. Class: a round whose looks all tie at the gate
and differ only on the screen's next tasks, the one that is better there anywhere in the proposer's
order, over generated splits, proposals and positions. With `tie_tasks` the better look goes on
wherever it stands; without, only when the order happens to put it first. A tie-break pays only for
the tied looks it cuts (the kept ones meet those tasks on the screen anyway)."""

from __future__ import annotations

import asyncio
import random

import pytest

from harnessx.evaluation import Evaluation
from harnessx.harness import load_preset
from harnessx.scoring import Scorecard, TaskScore
from harnessx.search.rules import make_acceptance
from test_search_acceptance import FakeArena, make_tasks


def succeeding_on(name: str, tasks, ok: set[str]) -> Evaluation:
    harness = load_preset("A1").renamed(name).with_component("few_shot", name)
    scores = []
    for task in tasks:
        good = task.id in ok
        fields = ({"solved": good, "false_abstention": False} if task.feasible else {"strict_sa": good, "relaxed_sa": good})
        scores.append(TaskScore(task_id=task.id, seed=0, feasible=task.feasible, family=task.family,
                                source_id=task.source_id, split="search", valid=True,
                                failure_mode=None if good else "proceeded", **fields))
    return Evaluation(harness, tuple(tasks), (0,), (), tuple(scores), Scorecard.from_scores(scores))


def a_round(seed: int, tie_tasks: int):
    """A round where every look succeeds on the gate's tasks and fails the rest of the screen, but one
    (at a random place in the proposer's order, past the gate's cut) that also succeeds there."""
    rng = random.Random(seed)
    tasks = make_tasks(rng.randint(12, 40))
    rule = make_acceptance("default", {"tie_tasks": tie_tasks})
    inc = succeeding_on("inc", tasks, set())  # fails everything: every pair is one the incumbent failed
    arena = FakeArena({inc.harness.hash: inc})
    screen, _ = rule.window(arena, inc)
    gate = {t.id for t in screen[:rule.settings.gate]}
    k = rng.choice([1, 2, 3])
    looks = rule.looks(k)
    keep = max(1, -(-looks * rule.settings.gate // rule.settings.screen))
    best = rng.randrange(keep, looks)
    outside = {t.id for t in tasks} - {t.id for t in screen}
    evals = [succeeding_on(f"look{i}", tasks, gate | ({t.id for t in screen} if i == best else set())
                           | set(rng.sample(sorted(outside), rng.randint(0, len(outside)))))
             for i in range(looks)]
    arena = FakeArena({e.harness.hash: e for e in (inc, *evals)})
    verdicts = asyncio.run(rule.judge(inc.harness, [e.harness for e in evals], arena))
    return rule, verdicts, best, keep, arena, inc


@pytest.mark.parametrize("seed", range(24))
def test_the_better_look_goes_on_wherever_the_proposer_put_it(seed):
    rule, verdicts, best, keep, arena, inc = a_round(seed, tie_tasks=4)
    assert not verdicts[best].stage.startswith("gate"), verdicts[best].reason
    cut = [i for i, v in enumerate(verdicts) if v.stage.startswith("gate")]
    assert len(cut) == len(verdicts) - keep  # the gate still keeps exactly its share


@pytest.mark.parametrize("seed", range(24))
def test_without_a_tie_break_the_proposers_order_decides(seed):
    rule, verdicts, best, keep, arena, inc = a_round(seed, tie_tasks=0)
    assert verdicts[best].stage.startswith("gate") and "not among the" in verdicts[best].reason
    assert all(not verdicts[i].stage.startswith("gate") for i in range(keep))


@pytest.mark.parametrize("seed", range(12))
def test_the_tie_break_pays_only_for_the_looks_it_cuts(seed):
    rule, verdicts, best, keep, arena, inc = a_round(seed, tie_tasks=4)
    screen, _ = rule.window(arena, inc)
    gate = {t.id for t in screen[:rule.settings.gate]}
    extra = {t.id for t in screen[rule.settings.gate:rule.settings.gate + 4]}
    for v in verdicts:
        paid = arena.paid_ids[v.evaluation.harness.hash]
        if v.stage.startswith("gate"):  # cut (every look tied): the gate's tasks and the tie-break's, nothing more
            assert paid == gate | extra
            # and its row holds what it was ranked on, so the ledger counts what the round paid
            assert {t.id for t in v.evaluation.tasks} == gate | extra and "tie-break" in v.stage
            assert v.reason.startswith("tied at gate") and "not among the" in v.reason
        else:  # kept: the tie-break's tasks are the screen's, which it meets anyway
            assert extra <= {t.id for t in screen} and gate | extra <= paid


def test_tie_tasks_needs_a_gate_and_room_on_the_screen():
    from harnessx.errors import InputError

    for settings in ({"gate": 0, "tie_tasks": 4}, {"tie_tasks": 13}, {"screen": 8, "tie_tasks": 5}):
        with pytest.raises(InputError, match="tie_tasks"):
            make_acceptance("default", settings)
    assert make_acceptance("default", {"tie_tasks": 12}).settings.tie_tasks == 12
