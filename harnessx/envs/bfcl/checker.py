"""Native reward from BFCL's own multi-turn checker (state check and execution-response check per
turn), run on the calls the agent made, turn by turn, exactly as BFCL scores a model's result.

BFCL's checker keeps the API instances it builds in its module's globals, keyed by model name and
entry id; each check here uses a fresh name and removes its instances afterwards, so checks never
share state.
"""

from __future__ import annotations

import copy
import itertools
import threading
from dataclasses import dataclass

from harnessx.envs.bfcl.data import Entry, require_bfcl

_COUNTER = itertools.count()
_LOCK = threading.Lock()


@dataclass(frozen=True)
class CheckResult:
    valid: bool
    error_type: str = ""
    error_message: str = ""


def check(entry: Entry, turns: list[list[str]]) -> CheckResult:
    """BFCL's verdict on one entry given the agent's decoded calls per turn (one call per step).

    Fewer turns than the entry has (the episode ended early) are padded with empty turns; more
    turns than it has are BFCL's `force_terminated` failure.
    """
    require_bfcl()
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    if len(turns) > entry.turns:
        return CheckResult(False, "multi_turn:force_terminated", f"{len(turns)} turns for {entry.turns}")
    padded = [list(t) for t in turns] + [[] for _ in range(entry.turns - len(turns))]
    decoded = [[[call] for call in turn] for turn in padded]
    with _LOCK:
        name = f"harnessx_check_{next(_COUNTER)}"
    try:
        result = multi_turn_checker(decoded, entry.ground_truth, copy.deepcopy(entry.raw), entry.category, name)
    finally:
        prefix = f"{name}_"
        for key in [k for k in list(vars(multi_turn_utils)) if k.startswith(prefix)]:
            vars(multi_turn_utils).pop(key, None)
    if result.get("valid"):
        return CheckResult(True)
    return CheckResult(False, str(result.get("error_type", "")), str(result.get("error_message", "")))
