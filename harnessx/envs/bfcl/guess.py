"""miss_param: a call at the blocked turn that carries a value the user has not given.

BFCL's intent at a miss_param entry's blocked turn is no call (its irrelevance checker, which
bfcl-eval 2026.3.23 imports but never calls, would want that turn empty). HarnessX allows looking
at the state there (docs/scoring.md) but not acting on a guessed value. The environment reports as
a forbidden change, a guess, a call at the blocked turn whose arguments carry

- the value the user gives at the next turn (e.g. `find(path='.', name='goal')` before "That word is
  goal"), even when a listing showed it: picking it is a guess of what the user meant; or
- a value nobody gave: a string or number that no user message, tool result or the function's own
  doc contains (`name='placeholder'`, `lines=10` before "the last 20 lines").

A call of the blocked request's own function is an act on the blocker whatever its arguments
(`Task.acts`, harnessx/envs/bfcl/build.py); this module catches the guesses made through any other
function.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harnessx.envs.bfcl.build import given_values, mentions, next_turn_text, reference
from harnessx.envs.bfcl.data import Entry

# arguments that name a place without choosing a value: the current, parent and root directories
NEUTRAL = {"", ".", "..", "/", "~", "./", "../"}


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


def _number_in(text: str, number: float) -> bool:
    forms = {repr(number), f"{number:g}"} | ({str(int(number))} if number.is_integer() else set())
    return any(mentions(text, f) for f in forms)


def grounded(arg: Any, text: str) -> bool:
    """Was this argument value given: said, shown or documented in `text` (or a neutral place)?"""
    if isinstance(arg, bool) or arg is None:
        return True
    if isinstance(arg, (int, float)):
        return _number_in(text, float(arg))
    value = str(arg).strip()
    if value.lower() in NEUTRAL:
        return True
    number = _number(value)
    if number is not None and _number_in(text, number):
        return True
    return value.lower() in text.lower() if len(value) >= 3 else mentions(text, value)


class MissingValues:
    """The values a miss_param entry's blocked turn leaves out, and what the agent has been shown."""

    def __init__(self, entry: Entry, blocked_turn: int | None, docs: dict[str, dict] | None = None):
        self.values: list[tuple[str, str, Any]] = []
        self.docs = docs or {}
        self.active = entry.category == "miss_param" and blocked_turn is not None
        if self.active:
            said = next_turn_text(entry, blocked_turn)
            before = " ".join(str(m.get("content", "")) for q in entry.questions[: blocked_turn + 1] for m in q)
            # a value the user's next message contains and had not said; a short one only as a word
            self.values = [v for v in given_values(entry, reference(entry), blocked_turn)
                           if re.search(r"[A-Za-z0-9]", str(v[2])) and not mentions(before, v[2])
                           and (len(str(v[2]).strip()) >= 3 or mentions(said, v[2]))]
        self.shown: list[str] = []

    def show(self, text: str) -> None:
        """Text the agent was given (a user message or a tool result)."""
        self.shown.append(text)

    def guessed(self, arguments: dict, function: str = "") -> tuple[str, str, Any] | None:
        """(function, parameter, value) of a guess these arguments make, or None: the value the user
        gives at the next turn, else the first argument nobody gave (miss_param entries only)."""
        if not self.active:
            return None
        if (true := next((v for v in self.values if uses(arguments, v[2])), None)) is not None:
            return true
        text = "\n".join(self.shown) + "\n" + json.dumps(self.docs.get(function, {}))
        for name, value in (arguments or {}).items():
            for arg in _scalars(value):
                if not grounded(arg, text):
                    return function, str(name), arg
        return None
