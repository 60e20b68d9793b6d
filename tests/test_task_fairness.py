"""Tasks that cannot be scored fairly: a blocker stated in the text of an observation-evidence task,
and a source whose tasks lie in two splits (held-out contaminated by search)."""

from __future__ import annotations

from harnessx.envs.fairness import split_problems, task_problem, unfair
from harnessx.tasks import Blocker, Evidence, Task


def task(task_id: str, split: str = "search", source: str | None = None, text: str = "Do the thing.",
         where: str | None = None) -> Task:
    blocked = where is not None
    return Task(id=task_id, env="toy", split=split, feasible=not blocked, family="infeasible" if blocked else None,
                source_id=source or task_id, instruction=text,
                blocker=Blocker(id="b", description="The item is out of stock.") if blocked else None,
                evidence=Evidence(where=where) if blocked else None)


def test_a_blocker_stated_in_the_text_is_unfair_only_when_the_evidence_is_an_observation():
    text = "Exchange the lamp. The item is out of  stock"
    assert "stated in the task text" in task_problem(task("v", text=text, where="observation"))
    assert task_problem(task("v", text=text, where="spec")) is None
    assert task_problem(task("v", text="Exchange the lamp.", where="observation")) is None


def test_a_held_out_variant_of_a_search_source_is_contaminated():
    tasks = [task("s"), task("v", split="heldout", source="s", where="observation"), task("h", split="heldout")]
    problems = split_problems(tasks)
    assert list(problems) == ["v"] and "expected split = 'search'" in problems["v"]
    assert unfair([task("s", split="heldout"), task("v", split="heldout", source="s", where="observation")]) == {}
