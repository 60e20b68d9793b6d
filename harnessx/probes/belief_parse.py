"""Parse a read-only feasibility report into P(feasible) in [0, 1], or say why it is invalid.

Accepted forms, first match wins: a JSON object with one of `KEYS`, or a labelled line
`P(feasible) = 0.7` (a trailing `%` means percent). Anything else, or a value outside [0, 1], is a
parse failure: the report is recorded as invalid and leaves every belief support.
"""

from __future__ import annotations

import json
import re

KEYS = ("p_feasible", "probability_feasible", "feasible_probability", "probability")
_OBJECT = re.compile(r"\{[^{}]*\}")
_LABELLED = re.compile(r"p\s*\(\s*feasible\s*\)\s*[=:]\s*(-?[0-9]*\.?[0-9]+)\s*(%?)", re.IGNORECASE)


def parse_probability(text: str) -> tuple[float | None, str | None]:
    """(p, None) for a usable report, (None, why) for a parse failure."""
    for match in _OBJECT.finditer(text or ""):
        try:
            obj = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        key = next((k for k in KEYS if isinstance(obj, dict) and k in obj), None)
        if key is not None:
            return _checked(obj[key])
    labelled = _LABELLED.search(text or "")
    if labelled:
        return _checked(labelled.group(1) + labelled.group(2))
    return None, "no P(feasible) value found"


def _checked(raw: object) -> tuple[float | None, str | None]:
    if isinstance(raw, bool):
        return None, f"P(feasible) is a boolean ({raw})"
    text = str(raw).strip()
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        return None, f"P(feasible) is not a number ({text[:40]!r})"
    if not 0.0 <= value <= 1.0:
        return None, f"P(feasible) = {value} is outside [0, 1]"
    return value, None
