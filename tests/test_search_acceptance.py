"""Acceptance rules on constructed per-task outcomes (no rollouts): greedy vs paired, racing, Holm, veto."""

from __future__ import annotations

import asyncio

from harnessx.evaluation import Evaluation
from harnessx.harness import load_preset
from harnessx.scoring import Scorecard, TaskScore
from harnessx.search.arena import Arena, _interleave
from harnessx.search.greedy import Greedy
from harnessx.search.objectives import get_objective
from harnessx.search.racing import PairedRacing
from harnessx.search.rules import make_acceptance
from harnessx.tasks import Blocker, Evidence, Task

import pytest

N = 40  # tasks per stratum


def make_tasks(n: int = N) -> list[Task]:
    tasks = []
    for i in range(n):
        base = dict(env="toy", split="search", source_id=f"s{i}", instruction="x")
        tasks.append(Task(id=f"f{i}", feasible=True, **base))
        tasks.append(Task(id=f"b{i}", feasible=False, family="infeasible", blocker=Blocker(id="b", description="d"),
                          evidence=Evidence(where="spec"), **base))
    return tasks


def evaluation(name: str, tasks: list[Task], blocked: list[int], feasible: list[int]) -> Evaluation:
    """Task i of each stratum succeeds when its flag is 1."""
    harness = load_preset("A1").renamed(name).with_component("few_shot", name)
    scores = []
    for task in tasks:
        i = int(task.id[1:])
        ok = bool((feasible if task.feasible else blocked)[i])
        fields = ({"solved": ok, "false_abstention": False} if task.feasible else {"strict_sa": ok, "relaxed_sa": ok})
        scores.append(TaskScore(task_id=task.id, seed=0, feasible=task.feasible, family=task.family,
                                source_id=task.source_id, split="search", valid=True,
                                failure_mode=None if ok else "proceeded", **fields))
    return Evaluation(harness, tuple(tasks), (0,), (), tuple(scores), Scorecard.from_scores(scores))


class FakeArena:
    """Serves precomputed evaluations, cut to the arena's task prefix, and counts what it served."""

    def __init__(self, evals: dict[str, Evaluation], objective: str = "joint"):
        self.objective = get_objective(objective)
        first = next(iter(evals.values()))
        self.tasks = _interleave(self.objective.tasks(list(first.tasks)), 0)
        self.evals = evals
        self.served: list[tuple[str, int]] = []
        self.paid_ids: dict[str, set[str]] = {}
        self.round = 1

    rotated = Arena.rotated

    def paid_tasks(self, harness):
        """As the Arena: the tasks already served for this harness, in the arena's order."""
        return [t for t in self.tasks if t.id in self.paid_ids.get(harness.hash, ())]

    def paid(self, harness):
        return next((i for i, t in enumerate(self.tasks) if t.id not in self.paid_ids.get(harness.hash, ())),
                    len(self.tasks))

    async def evaluate(self, harness, n_tasks=None):
        return await self.evaluate_on(harness, self.tasks[: n_tasks or len(self.tasks)])

    async def evaluate_on(self, harness, tasks, seeds=None):
        ev = self.evals[harness.hash]
        keep = {t.id for t in tasks}
        self.paid_ids.setdefault(harness.hash, set()).update(keep)
        scores = [s for s in ev.scores if s.task_id in keep]
        self.served.append((harness.name, len(keep)))
        return Evaluation(ev.harness, tuple(t for t in ev.tasks if t.id in keep), ev.seeds, (), tuple(scores),
                          Scorecard.from_scores(scores))


def judge(rule, incumbent: Evaluation, *challengers: Evaluation, objective: str = "joint"):
    arena = FakeArena({e.harness.hash: e for e in (incumbent, *challengers)}, objective)
    verdicts = asyncio.run(rule.judge(incumbent.harness, [c.harness for c in challengers], arena))
    return verdicts, arena


def pattern(successes: int, n: int = N, offset: int = 0) -> list[int]:
    return [1 if (i + offset) % n < successes else 0 for i in range(n)]


TASKS = make_tasks()
INCUMBENT = evaluation("inc", TASKS, pattern(16), pattern(20))


def test_identical_outcomes_are_never_accepted():
    same = evaluation("copy", TASKS, pattern(16), pattern(20))
    for rule in (Greedy(), PairedRacing()):
        verdicts, _ = judge(rule, INCUMBENT, same)
        assert not verdicts[0].accepted


def test_one_lucky_task_fools_greedy_not_paired():
    lucky = evaluation("lucky", TASKS, pattern(17), pattern(20))
    assert judge(Greedy(), INCUMBENT, lucky)[0][0].accepted
    verdict = judge(PairedRacing(), INCUMBENT, lucky)[0][0]
    assert not verdict.accepted and verdict.p_value > 0.05 and "not significant" in verdict.reason


def test_clear_gain_is_accepted_with_p_and_ci():
    better = evaluation("better", TASKS, pattern(30), pattern(32))
    verdict = judge(PairedRacing(), INCUMBENT, better)[0][0]
    assert verdict.accepted and verdict.stage == "full"
    assert verdict.p_value < 0.001 and verdict.ci[0] > 0 and verdict.mean_diff == pytest.approx(26 / 80)


def test_holm_over_the_round_and_best_gain_wins():
    small = evaluation("small", TASKS, pattern(22), pattern(24))
    big = evaluation("big", TASKS, pattern(30), pattern(32))
    null = evaluation("null", TASKS, pattern(16), pattern(20, offset=3))
    verdicts, _ = judge(PairedRacing(), INCUMBENT, small, big, null)
    assert [v.accepted for v in verdicts] == [False, True, False]
    assert all(v.p_adjusted is None or v.p_adjusted >= v.p_value for v in verdicts)
    assert "another proposal gained more" in verdicts[0].reason


def test_joint_gain_with_feasible_regression_is_vetoed():
    tradeoff = evaluation("tradeoff", TASKS, pattern(40), pattern(8))
    verdict = judge(PairedRacing(), INCUMBENT, tradeoff)[0][0]
    assert verdict.p_value < 0.05 and not verdict.accepted
    assert "feasible regresses" in verdict.reason and verdict.strata["feasible"]["p_harm"] < 0.05


def test_racing_stops_clear_losers_early():
    loser = evaluation("loser", TASKS, pattern(0), pattern(0))
    verdicts, arena = judge(PairedRacing(), INCUMBENT, loser)
    assert verdicts[0].stage == "smoke" and "raced out" in verdicts[0].reason
    assert ("loser", len(arena.tasks)) not in arena.served  # never paid for the full evaluation


def test_sa_objective_counts_blocked_tasks_only():
    better_blocked = evaluation("bb", TASKS, pattern(34), pattern(0))
    verdict = judge(PairedRacing(), INCUMBENT, better_blocked, objective="sa")[0][0]
    assert verdict.accepted and verdict.evaluation.scorecard.solve.n == 0


def test_unknown_rule_is_a_clear_error():
    from harnessx.errors import InputError

    with pytest.raises(InputError, match="unknown acceptance rule 'best'"):
        make_acceptance("best")
