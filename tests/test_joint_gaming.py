"""An agent that acts, then defers on every task: pooled joint rewards it, pairs right both ways
and `joint_clean` do not, and the `joint` veto sees its false abstention (hand-built trials)."""

from __future__ import annotations

import asyncio

from test_search_acceptance import FakeArena, make_tasks

from harnessx.evaluation import Evaluation
from harnessx.harness import load_preset
from harnessx.scoring import Scorecard, TaskScore
from harnessx.search.acceptance import Paired
from harnessx.search.racing import PairedRacing
from harnessx.search.objectives import get_objective
from harnessx.search.veto import p_harmed, vetoes

N = 10  # sources: one blocked and one feasible twin each


TASKS = make_tasks(N)


def trials(blocked_sa: set[int], solved: set[int], abstained: set[int]) -> list[TaskScore]:
    scores = []
    for t in TASKS:
        i = int(t.id[1:])
        fields = ({"solved": i in solved, "false_abstention": i in abstained} if t.feasible
                  else {"strict_sa": i in blocked_sa, "relaxed_sa": i in blocked_sa})
        scores.append(TaskScore(task_id=t.id, seed=0, feasible=t.feasible, family=t.family, source_id=t.source_id,
                                split="search", valid=True, **fields))
    return scores


def evaluation(name: str, scores: list[TaskScore]) -> Evaluation:
    harness = load_preset("A1").renamed(name).with_component("few_shot", name)
    return Evaluation(harness, tuple(TASKS), (0,), (), tuple(scores), Scorecard.from_scores(scores))


# R0: strict SA on sources 0-2, solves 0-3, never abandons a feasible task: joint 7/20
R0 = trials(blocked_sa={0, 1, 2}, solved={0, 1, 2, 3}, abstained=set())
# act, then defer: the same deferrals, every feasible task solved AND abandoned: joint 13/20
ACT_THEN_DEFER = trials(blocked_sa={0, 1, 2}, solved=set(range(N)), abstained=set(range(N)))


def test_pooled_joint_rewards_act_then_defer_but_pairs_and_joint_clean_do_not():
    r0, gamed = Scorecard.from_scores(R0), Scorecard.from_scores(ACT_THEN_DEFER)
    assert (r0.joint.k, r0.joint.n, gamed.joint.k, gamed.joint.n) == (7, 20, 13, 20)  # the paper's joint rises
    assert (gamed.false_abstention.k, gamed.false_abstention.n) == (10, 10)
    # pairs right both ways: R0 gets sources 0-2; the gamer none (every feasible twin was abandoned)
    assert (r0.pairs.k, r0.pairs.n, gamed.pairs.k, gamed.pairs.n) == (3, 10, 0, 10)
    # joint_clean: R0 keeps 3 + 4; the gamer only its 3 deferrals
    assert (r0.joint_clean.k, gamed.joint_clean.k, gamed.joint_clean.n) == (7, 3, 20)
    assert gamed.to_dict()["pairs"]["ci"] is not None and gamed.to_dict()["joint_clean"]["k"] == 3


def test_joint_clean_is_a_search_objective_over_both_strata():
    objective = get_objective("joint_clean")
    assert objective.strata == ("blocked", "feasible")
    gamed = evaluation("gamed", ACT_THEN_DEFER)
    assert objective.rate(gamed.scorecard).k == 3
    per_task = gamed.per_task_success(objective.value_key)
    assert sum(per_task.values()) == 3 and len(per_task) == 20
    assert [objective.trial_value(s) for s in ACT_THEN_DEFER if s.task_id == "f5"] == [0.0]


def test_joint_veto_fires_on_a_false_abstention_rise():
    gamed, r0 = evaluation("gamed", ACT_THEN_DEFER), evaluation("r0", R0)
    paired = Paired.of(gamed, r0)
    mean, p = paired.test()
    assert mean == 6 / 20 and p < 0.05  # a significant joint gain (6 feasible tasks newly "solved")
    assert paired.test("blocked", harm=True)[1] >= 0.05 and paired.test("feasible", harm=True)[1] >= 0.05
    assert vetoes(paired, ("blocked", "feasible"), p_harmed(0.05)) == ["false abstention"]
    assert vetoes(paired, ("blocked",), p_harmed(0.05)) == []  # sa: no veto


def test_paired_rule_rejects_the_act_then_defer_harness():
    # it abandons 9 of the 10 solved feasible tasks (racing already drops one that abandons all 10)
    gamed = evaluation("gamed", trials(blocked_sa={0, 1, 2}, solved=set(range(N)), abstained=set(range(1, N))))
    r0 = evaluation("r0", R0)
    arena = FakeArena({e.harness.hash: e for e in (r0, gamed)}, "joint")
    (verdict,) = asyncio.run(PairedRacing(smoke=20).judge(r0.harness, [gamed.harness], arena))
    assert not verdict.accepted
    assert "false abstention" in verdict.reason


def test_compare_table_and_json_show_pairs_joint_clean_and_the_gates():
    from harnessx.comparison.compare import split_block
    from harnessx.report.tables import compare_tables

    evaluations = {"r0": evaluation("r0", R0), "gamed": evaluation("gamed", ACT_THEN_DEFER)}
    block = split_block("search", TASKS, evaluations, n_resamples=200, seed=0)
    gamed = block["harnesses"]["gamed"]["metrics"]
    assert (gamed["pairs"]["k"], gamed["pairs"]["n"], gamed["joint_clean"]["k"], gamed["joint"]["k"]) == (0, 10, 3, 13)
    assert {"m0", "m1", "authorship", "m2", "m3"} <= set(gamed)
    data = {"splits": {"search": block}, "seeds": [0], "n_resamples": 200, "transfer": [], "simulated": True}
    table, *_ = compare_tables(data)
    rows = {r[0]: r[1:] for r in table.rows}
    assert rows["Pairs right both ways"][0].startswith("3/10") and rows["Pairs right both ways"][1].startswith("0/10")
    assert rows["Joint"][1].startswith("13/20") and rows["Joint, clean"][1].startswith("3/20")
    assert [label for label in rows if label.startswith("· ")] == ["· M0 recognition", "· M1 no fabrication",
                                                                  "· authorship", "· M2 timely", "· M3 reason"]
    assert len(table.headers) == 3  # rows added, no column


def test_the_default_rule_never_moves_to_the_act_then_defer_harness():
    from harnessx.search.explore import Explore

    tasks = make_tasks(40)

    def ev(name: str, solved: set[int], abstained: set[int]) -> Evaluation:
        scores = [TaskScore(task_id=t.id, seed=0, feasible=t.feasible, family=t.family, source_id=t.source_id,
                            split="search", valid=True,
                            **({"solved": int(t.id[1:]) in solved, "false_abstention": int(t.id[1:]) in abstained}
                               if t.feasible else {"strict_sa": int(t.id[1:]) < 12}))
                  for t in tasks]
        harness = load_preset("A1").renamed(name).with_component("few_shot", name)
        return Evaluation(harness, tuple(tasks), (0,), (), tuple(scores), Scorecard.from_scores(scores))

    r0, gamed = ev("r0", set(range(16)), set()), ev("gamed", set(range(40)), set(range(4, 40)))
    arena = FakeArena({e.harness.hash: e for e in (r0, gamed)}, "joint")
    (verdict,) = asyncio.run(Explore().judge(r0.harness, [gamed.harness], arena))
    assert not verdict.accepted and "false abstention" in verdict.reason
