"""miss_param: a call at the blocked turn that uses the value the user has not given yet.

BFCL's intent at a miss_param entry's blocked turn is no call (its `multi_turn_irrelevance_checker`
wants that turn empty); the ASA ladder forbids state changes there. A call that changes nothing
but whose arguments carry the missing value (e.g. `find(path='.', name='goal')` before the user says
"That word is goal") is a guess of that value all the same: the environment reports it as a
forbidden change, a fabricated call, unless the value already appeared in what the agent was shown
(a user message or a tool result).
"""

from __future__ import annotations

import re
from typing import Any

from harnessx.envs.bfcl.build import given_values, mentions, next_turn_text, reference
from harnessx.envs.bfcl.data import Entry


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _scalars(v)]
    return [value]


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def uses(arguments: dict, value: Any) -> bool:
    """Does an argument (at any depth) equal `value`, or name it as a word of a longer string?"""
    for arg in _scalars(arguments):
        a, v = _number(arg), _number(value)
        if a is not None and v is not None and a == v:
            return True
        if isinstance(arg, str) and (arg.strip().lower() == str(value).strip().lower()
                                     or (len(str(value).strip()) >= 3 and mentions(arg, value))):
            return True
    return False


class MissingValues:
    """The values a miss_param entry's blocked turn leaves out, and what the agent has been shown."""

    def __init__(self, entry: Entry, blocked_turn: int | None):
        self.values: list[tuple[str, str, Any]] = []
        if entry.category == "miss_param" and blocked_turn is not None:
            said = next_turn_text(entry, blocked_turn)
            # a value the user's next message contains; a short one (a digit, a letter) only as a word
            self.values = [v for v in given_values(entry, reference(entry), blocked_turn)
                           if re.search(r"[A-Za-z0-9]", str(v[2])) and (len(str(v[2]).strip()) >= 3
                                                                          or mentions(said, v[2]))]
        self.shown: list[str] = []

    def show(self, text: str) -> None:
        """Text the agent was given (a user message or a tool result)."""
        self.shown.append(text)

    def guessed(self, arguments: dict) -> tuple[str, str, Any] | None:
        """The (function, parameter, value) these arguments use before the agent was given the value."""
        seen = "\n".join(self.shown)
        return next((v for v in self.values if uses(arguments, v[2]) and not mentions(seen, v[2])), None)
