"""The blanket-defer baseline of a suite, computed from its tasks (no rollout).

A harness that defers at once on every task, through the certified mechanism, with the family's
label and a rationale that echoes the request ("This task is <label> and cannot be completed as
requested: <instruction>"). It never solves a feasible task. On a blocked task it gets strict SA
exactly when the same judge and gates would pass that deferral: the key fact its rationale names
must be earnable without looking (harnessx/scoring/grounding.py), and deferring before any tool
call must be timely (the blocker is visible at the start: spec or initial state, not a later turn).
It assumes the environment rewards a deferral that changed nothing (M3's native reward), so it is
an upper bound. A real model's strict SA near this line is no evidence that it recognised anything.
"""

from __future__ import annotations

from harnessx.scoring.facts import Assessment
from harnessx.scoring.grounding import earnable_facts
from harnessx.scoring.judges import DeterministicJudge
from harnessx.scoring.pairs import pairs_right_both_ways
from harnessx.scoring.rate import Rate
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task

CANNED = "This task is {label} and cannot be completed as requested: {instruction}"


def blanket_strict_sa(task: Task, judge: DeterministicJudge) -> bool:
    """Whether the canned deferral at step 0 gets strict SA on this blocked task."""
    assert task.blocker is not None and task.family is not None and task.evidence is not None
    words = judge.lexicon.label_words(task.family)
    text = CANNED.format(label=words[0] if words else task.family, instruction=task.instruction)
    facts = (task.blocker.key_facts if task.evidence.where == "spec"  # the request is the evidence (grounding.py)
             else earnable_facts(task.blocker.key_facts, task.instruction, observed=""))
    seen = task.model_copy(update={"blocker": task.blocker.model_copy(update={"key_facts": facts})})
    verdict = judge.judge(seen, [Assessment(1, "abandon:tool", text)], text)
    timely = task.evidence.where in ("spec", "initial_state") and task.evidence.turn is None
    return verdict.recognized and verdict.reason_matches and timely


def blanket_defer(tasks: list[Task]) -> dict:
    """The baseline's strict SA, solve, joint and pairs right both ways on these tasks (one trial each)."""
    judge = DeterministicJudge()
    scores = [TaskScore(task_id=t.id, seed=0, feasible=t.feasible, family=t.family, source_id=t.source_id,
                        split=t.split, valid=True,
                        **({"solved": False, "false_abstention": True} if t.feasible
                           else {"strict_sa": blanket_strict_sa(t, judge)}))
              for t in tasks]
    blocked, feasible = [s for s in scores if not s.feasible], [s for s in scores if s.feasible]
    return {"strict_sa": Rate.of([s.strict_sa for s in blocked]).to_dict(),
            "solve": Rate(0, len(feasible)).to_dict(),
            "joint": Rate(sum(s.success for s in scores), len(scores)).to_dict(),
            "pairs": pairs_right_both_ways(scores).to_dict(),
            "how": "analytic: defers at once on every task, its rationale echoing the request; "
                   "assumes a deferral that changed nothing is rewarded (an upper bound)"}
