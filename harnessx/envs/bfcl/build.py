"""BFCL entries as HarnessX tasks: families, blockers, turn evidence, the simulator's side channel
and the deterministic splits of `environments/bfcl/suite.yaml`.

- `multi_turn_base_<i>` -> feasible `bfcl-base-<i>` (its own source).
- `multi_turn_miss_func_<i>` -> blocked, family `infeasible`, source `bfcl-base-<i>`: the blocker is
  the withheld function, the evidence the turn whose request needs it (BFCL's ground truth for that
  turn is empty; the function comes back at the next turn).
- `multi_turn_miss_param_<i>` -> blocked, family `ambiguous`, source `bfcl-base-<i>`: the blocker is
  the parameter the request at the evidence turn leaves out (the one whose value the user gives at
  the next turn), the evidence that turn.
- `multi_turn_long_context_<i>` -> feasible `bfcl-long_context-<i>` (independent pool).
The side channel (`reference`) is the entry's own ground truth as calls, with `turns` giving how
many belong to each user turn.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import yaml

from harnessx.envs.bfcl.api import build_instances, parse_call
from harnessx.envs.bfcl.data import Entry, load_category
from harnessx.errors import InputError
from harnessx.tasks import Act, Blocker, Evidence, Reference, Task, ToolCall

SHAPE_FILE = Path(__file__).resolve().parents[3] / "environments" / "bfcl" / "suite.yaml"
FAMILY = {"miss_func": "infeasible", "miss_param": "ambiguous"}
BLOCKED_CATEGORY = {v: k for k, v in FAMILY.items()}


def task_id(entry: Entry) -> str:
    return f"bfcl-{entry.category}-{entry.index}"


def reference(entry: Entry) -> Reference:
    instances = build_instances(entry)
    turns = [[parse_call(text, instances) for text in turn] for turn in entry.ground_truth]
    return Reference(actions=[c for turn in turns for c in turn], turns=[len(t) for t in turns])


def blocked_turn(entry: Entry) -> int:
    """miss_func: the turn before the one where BFCL restores the function; miss_param: the first
    turn with an empty ground truth (two entries also keep their source's own empty turns later)."""
    if entry.missed_function:
        return min(int(k) for k in entry.missed_function) - 1
    empty = [i for i, turn in enumerate(entry.ground_truth) if not turn]
    if not empty:
        raise InputError(entry.id, "no turn with an empty ground truth", "the blocked turn")
    return empty[0]


def mentions(text: str, value: Any) -> bool:
    """Does `text` contain `value` as a whole word (case-insensitive)?"""
    needle = str(value).strip()
    return bool(needle) and re.search(rf"(?<![A-Za-z0-9_]){re.escape(needle)}(?![A-Za-z0-9_])", text,
                                      re.IGNORECASE) is not None


def next_turn_text(entry: Entry, turn: int) -> str:
    return " ".join(str(m.get("content", "")) for m in entry.questions[turn + 1]) if turn + 1 < entry.turns else ""


def given_values(entry: Entry, ref: Reference, turn: int) -> list[tuple[str, str, Any]]:
    """(function, parameter, value) of each argument of the gold calls at the turn after `turn` whose
    value the user says in that turn: what the request at `turn` leaves out (miss_param)."""
    start = sum(ref.turns[: turn + 1])
    later = ref.actions[start: start + ref.turns[turn + 1]] if turn + 1 < len(ref.turns) else []
    said = next_turn_text(entry, turn).lower() if later else ""
    return [(call.name, key, value) for call in later for key, value in call.arguments.items()
            if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).lower() in said]


def missing_parameter(entry: Entry, ref: Reference, turn: int) -> tuple[str, str]:
    """(function, parameter) whose value the user supplies at the turn after the blocked one: the
    first whose value the user says as a word (`find(path='.', name='goal')` after "That word is
    goal." is `name`, not `path`), else the first the user's text contains."""
    given = given_values(entry, ref, turn)
    said = next_turn_text(entry, turn)
    if given:
        first = next((g for g in given if mentions(said, g[2])), given[0])
        return first[0], first[1]
    start = sum(ref.turns[: turn + 1])
    later = ref.actions[start: start + ref.turns[turn + 1]] if turn + 1 < len(ref.turns) else []
    call = later[0] if later else ToolCall(name="the request")
    return call.name, next(iter(call.arguments), "a required value")


def needing_functions(entry: Entry, ref: Reference, turn: int) -> list[str]:
    """miss_param: the functions whose gold calls at the next turn take a value the user only gives
    there (the blocked request's own functions; a value said before may still be missing in this
    role: entry 0 names 'previous_report.pdf' as what to compare, not as the file to move), else
    the one `missing_parameter` names."""
    names = list(dict.fromkeys(g[0] for g in given_values(entry, ref, turn)))
    return names or [missing_parameter(entry, ref, turn)[0]]


def acts(entry: Entry, ref: Reference, turn: int) -> list[Act]:
    """The calls that act on the blocker (docs/scoring.md): miss_func, any call of a withheld function
    before BFCL restores it; miss_param, any call of a function the blocked request needs, whatever
    its arguments (a guessed, placeholder or even the true value, a call without it), before the user
    gives the value at the next turn."""
    if entry.category == "miss_func":
        return [Act(tool=name, from_turn=turn, until_turn=int(back), why="a call of the withheld function before it is restored")
                for back, names in sorted(entry.missed_function.items()) for name in names]
    return [Act(tool=name, from_turn=turn, until_turn=turn + 1, why="a call of the blocked request's function before the user "
                "gives the missing value") for name in needing_functions(entry, ref, turn)]


def _blocker(entry: Entry, ref: Reference, turn: int) -> tuple[Blocker, list[str]]:
    if entry.category == "miss_func":
        names = sorted({n for names in entry.missed_function.values() for n in names})
        listed = ", ".join(names)
        return (Blocker(id=f"missing_function:{listed}", key_facts=names[:3],
                        description=f"the function {listed} that the request at turn {turn} needs is not available"),
                [f"a call of {listed} or any state change at turn {turn}"])
    func, param = missing_parameter(entry, ref, turn)
    return (Blocker(id=f"missing_parameter:{func}.{param}", key_facts=[param, f"{func}.{param}"][:3],
                    description=f"the request at turn {turn} does not give the parameter {param} of {func}"),
            [f"a state change at turn {turn} (a guessed {param})"])


def entry_task(entry: Entry, split: str, same_config: bool | None = None) -> Task:
    ref = reference(entry)
    meta: dict[str, Any] = {"bfcl_id": entry.id, "bfcl_category": entry.category, "turns": entry.turns}
    base = dict(id=task_id(entry), env="bfcl", split=split, instruction=" ".join(
        str(m.get("content", "")) for m in entry.questions[0]), reference=ref)
    if entry.category not in FAMILY:
        source = task_id(entry) if entry.category != "miss_func" else ""
        return Task(**base, feasible=True, source_id=source, metadata=meta)
    turn = blocked_turn(entry)
    blocker, forbidden = _blocker(entry, ref, turn)
    meta.update(blocked_turn=turn, same_initial_config=same_config)
    return Task(**base, feasible=False, family=FAMILY[entry.category], source_id=f"bfcl-base-{entry.index}",
                blocker=blocker, evidence=Evidence(where="observation", turn=turn), forbidden=forbidden,
                acts=acts(entry, ref, turn), metadata=meta)


def load_shape(path: Path = SHAPE_FILE) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for split in ("search", "heldout"):
        if not isinstance(data.get(split), dict) or set(data[split]) - set(BLOCKED_CATEGORY):
            raise InputError(str(path), f"field '{split}'", "a mapping of infeasible/ambiguous to counts")
    return data


def source_order(seed: int, indices: list[int]) -> list[int]:
    return sorted(indices, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())


def build_tasks(shape: dict[str, Any], bfcl_dir: str | None = None) -> list[Task]:
    by_cat = {c: {e.index: e for e in load_category(c, bfcl_dir)} for c in ("base", "miss_func", "miss_param",
                                                                            "long_context")}
    order = iter(source_order(int(shape.get("seed", 0)), sorted(by_cat["base"])))
    tasks: list[Task] = []
    for split in ("search", "heldout"):
        for family, count in shape[split].items():
            category = BLOCKED_CATEGORY[family]
            for _ in range(int(count)):
                i = next(order)
                base, blocked = by_cat["base"][i], by_cat[category][i]
                tasks.append(entry_task(base, split))
                tasks.append(entry_task(blocked, split, blocked.initial_config == base.initial_config))
    for _ in range(int(shape.get("independent", 0))):
        tasks.append(entry_task(by_cat["long_context"][next(order)], "independent"))
    return tasks
