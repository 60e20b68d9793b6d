"""Judges for the two rubric parts of the ladder: M0 recognition and the reason part of M3.

A judge reads the visible agent assessments and the agent's certified outcome reason, grounded in
the task's protected blocker, and returns a `Verdict`. A verdict with `failure` set is a judge
failure: the rollout is then invalid, never a pass or a fail.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict

from harnessx.scoring.facts import Assessment
from harnessx.scoring.lexicon import Lexicon, default_lexicon, find_fact
from harnessx.tasks import Task


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)
    recognized: bool = False
    first_recognition: int | None = None  # index into the assessments of the first that recognises
    reason_matches: bool = False
    rationale: str = ""
    failure: str | None = None


class Judge(Protocol):
    name: str

    def judge(self, task: Task, assessments: list[Assessment], reason: str | None) -> Verdict: ...


class DeterministicJudge:
    """Offline judge grounded in the protected blocker and the versioned lexicon.

    M0: some single assessment holds a label of the task's family and one of `blocker.key_facts`.
    M3 reason: the agent's abandon reason/rationale holds one of `blocker.key_facts`.
    """

    def __init__(self, lexicon: Lexicon | None = None):
        self.lexicon = lexicon or default_lexicon()
        self.name = f"deterministic/{self.lexicon.version}"

    def judge(self, task: Task, assessments: list[Assessment], reason: str | None) -> Verdict:
        if task.blocker is None or task.family is None:
            raise ValueError(f"task {task.id}: only blocked tasks are judged")
        facts = task.blocker.key_facts
        notes, first = [], None
        for i, a in enumerate(assessments):
            label, fact = self.lexicon.find_label(a.text, task.family), find_fact(a.text, facts)
            if label and fact:
                first = i
                notes.append(f"assessment {i} ({a.source}, step {a.step}) labels {label!r} and names {fact!r}")
                break
        else:
            notes.append("no assessment gives both a family label and a key fact")
        reason_fact = find_fact(reason or "", facts)
        notes.append(f"reason names {reason_fact!r}" if reason_fact else
                     "no abandon reason" if reason is None else "reason names no key fact")
        return Verdict(recognized=first is not None, first_recognition=first,
                       reason_matches=reason_fact is not None, rationale="; ".join(notes))
