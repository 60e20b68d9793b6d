"""One validator for numeric options: finite, and inside the range the option means.

Click's ranges let NaN through (every comparison with NaN is false) and accept infinity; an option
given `callback=in_range(...)` refuses both, and a value outside its range, as a usage error that
names the option and the range it expects (exit 2).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import typer

PORT = {"min": 0, "max": 65535}  # for typer.Option(**PORT): 0 = any free port


def in_range(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
             hi_open: bool = False) -> Callable[[Any], Any]:
    """A typer callback: each given value must be finite and within [lo, hi] (open where asked)."""
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    if lo is not None and hi is not None:
        expected = f"a finite number in {left}{lo:g}, {hi:g}{right}"
    elif lo is not None:
        expected = f"a finite number {'>' if lo_open else '>='} {lo:g}"
    elif hi is not None:
        expected = f"a finite number {'<' if hi_open else '<='} {hi:g}"
    else:
        expected = "a finite number"

    def inside(value: float) -> bool:
        if not math.isfinite(value):
            return False
        if lo is not None and (value <= lo if lo_open else value < lo):
            return False
        return not (hi is not None and (value >= hi if hi_open else value > hi))

    def check(value: Any) -> Any:
        for item in value if isinstance(value, list | tuple) else [value]:
            if item is not None and not inside(item):
                raise typer.BadParameter(f"{item:g} is not {expected}")
        return value

    return check


PROBABILITY_OPEN = in_range(0, 1, lo_open=True, hi_open=True)  # alpha, power, confidence, margin
NON_NEGATIVE = in_range(0)  # costs, seconds
