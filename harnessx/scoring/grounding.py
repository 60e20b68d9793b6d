"""Which key facts a rationale may earn: only those the agent could not have copied from the request.

On a task whose decisive evidence is an observation or the initial state, a key fact that the
request itself states (the task's instruction, or the task message the agent was given) is no
evidence of recognition: a blanket deferral that echoes the request would name it. Such a fact
counts only when the agent observed it in what the episode returned before it deferred (a tool
result, or a later user message), i.e. it looked and saw the blocker. On a task whose evidence is
the spec, the request is where the blocker is seen, so its facts count (the paired feasible twin,
whose request lacks the blocker, is what a blanket deferral fails). A key fact the request does not
state counts as before. The judges then ground M0 and the M3 reason in these facts.
"""

from __future__ import annotations

from harnessx.tasks import Task
from harnessx.trajectory import Event, Trajectory


def given_text(task: Task, events: tuple[Event, ...]) -> str:
    """What the agent was given at the start: the instruction and the task message."""
    task_messages = [str(e.data.get("content") or "") for e in events
                     if e.kind == "message" and e.author == "user" and e.data.get("role") == "task"]
    return "\n".join([task.instruction, *task_messages])


def observed_text(events: tuple[Event, ...], before: int | None) -> str:
    """What the episode returned to the agent before position `before` (all of it when None): tool
    results and the user's later messages."""
    return "\n".join(str(e.data.get("content") or "") for e in events
                     if (before is None or e.seq < before)
                     and (e.kind == "tool_result"
                          or (e.kind == "message" and e.author == "user" and e.data.get("role") != "task")))


def earnable_facts(key_facts: list[str], given: str, observed: str) -> list[str]:
    """The key facts a rationale may earn: those not stated in `given`, and those stated there that
    also occur in `observed` (case-insensitive, as the judge matches them)."""
    given, observed = given.lower(), observed.lower()
    return [f for f in key_facts if f and (f.lower() not in given or f.lower() in observed)]


def grounded_task(task: Task, trajectory: Trajectory, decided_at: int | None) -> Task:
    """The task as the judge sees it: its blocker's key facts cut to those earnable before the agent's
    deferral was decided (`decided_at`; None: no deferral, the whole episode)."""
    if task.blocker is None or task.evidence is None or task.evidence.where == "spec":
        return task
    events = trajectory.events
    facts = earnable_facts(task.blocker.key_facts, given_text(task, events), observed_text(events, decided_at))
    if facts == task.blocker.key_facts:
        return task
    return task.model_copy(update={"blocker": task.blocker.model_copy(update={"key_facts": facts})})
