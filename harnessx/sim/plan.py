"""The simulated agent's plan for a task, built from the side channel's reference actions.

Proceeding on a blocked task means executing the reference plan (the environment makes it fail or
marks its writes forbidden). A trap's decisive evidence call is inserted before the first
state-changing step when the plan does not already make it.
"""

from __future__ import annotations

from dataclasses import dataclass

READ_PREFIXES = ("get", "find", "list", "search", "read", "lookup", "look_up", "calculate", "view", "show",
                 "check", "query", "describe", "inspect", "cat", "ls")

Call = tuple[str, dict]
SHELL = "bash"


def is_read(name: str) -> bool:
    return name.lower().startswith(READ_PREFIXES)


def matches(call: Call, tool: str | None, args: dict) -> bool:
    return tool is not None and call[0] == tool and all(call[1].get(k) == v for k, v in args.items())


@dataclass(frozen=True)
class Plan:
    steps: tuple[Call, ...]
    evidence_index: int  # index of the step that reveals the evidence; -1: visible from the start
    leading_reads: int   # read-only steps of offered tools before the first state-changing one

    @property
    def writes(self) -> tuple[int, ...]:
        return tuple(i for i, (name, _) in enumerate(self.steps) if not is_read(name))


def build_plan(side: dict, tools: frozenset[str] = frozenset()) -> Plan:
    """The reference steps, plus the call that shows a trap's evidence when the plan lacks it: the
    named evidence call, or (marker only, with a shell) a look through the workspace for it."""
    steps: list[Call] = [(a["name"], dict(a.get("arguments") or {})) for a in side["reference"]["actions"]]
    first_write = next((i for i, (name, _) in enumerate(steps) if not is_read(name)), len(steps))
    evidence = side.get("evidence") or {}
    if evidence.get("where") != "observation":
        return Plan(tuple(steps), -1, _probes(steps, first_write, tools))
    if evidence.get("turn") is not None:  # multi-turn: the evidence is the user turn itself
        return Plan(tuple(steps), sum((side["reference"].get("turns") or [])[: evidence["turn"]]), first_write)
    tool, args, marker = evidence.get("tool"), evidence.get("args") or {}, evidence.get("marker")
    index = next((i for i, call in enumerate(steps) if matches(call, tool, args)), -1)
    look = (tool, dict(args)) if tool else (SHELL, {"command": _grep(marker)}) if marker and SHELL in tools else None
    if index < 0 and look:
        steps.insert(first_write, look)
        index, first_write = first_write, first_write + 1
    elif index < 0:  # the marker shows in some result; assume the first write's
        index = min(first_write, max(len(steps) - 1, 0))
    return Plan(tuple(steps), index, first_write)


def _probes(steps: list[Call], first_write: int, tools: frozenset[str]) -> int:
    """How many leading reads an agent can probe with before acting on evidence it had from the
    start: it stops at a tool it was not offered (a masked twin's withheld lookup), since calling
    that is acting on the blocker, not looking."""
    if not tools:
        return first_write
    return next((i for i, (name, _) in enumerate(steps[:first_write]) if name not in tools), first_write)


def _grep(marker: str) -> str:
    quoted = "'" + marker.replace("'", "'\\''") + "'"
    return (f"grep -rn -F -- {quoted} . 2>/dev/null | head -n 5; "
            "find . -name SHA256SUMS -execdir sha256sum -c SHA256SUMS \\; 2>&1 | head -n 20")


def evidence_call(side: dict) -> Call | None:
    """The call that shows the blocker, when the side channel names one."""
    evidence = side.get("evidence") or {}
    return (evidence["tool"], dict(evidence.get("args") or {})) if evidence.get("tool") else None


def altered(call: Call, pick: float) -> Call:
    """The same call with one argument slightly wrong (a plausible slip, not garbage)."""
    name, args = call
    keys = [k for k, v in args.items() if isinstance(v, (str, int, float, list)) and not isinstance(v, bool)]
    if not keys:
        return name, {**args, "note": "draft"}
    key = keys[int(pick * len(keys)) % len(keys)]
    return name, {**args, key: _slip(args[key])}


def _slip(value):
    if isinstance(value, list):
        return value[:-1] + [_slip(value[-1])] if value else ["?"]
    if isinstance(value, (int, float)):
        return value + 1
    if "\n" in value.strip():  # a script: its second half is left out
        lines = value.strip().splitlines()
        return "\n".join(lines[: max(1, len(lines) // 2)])
    return value[:-1] + ("1" if not value.endswith("1") else "2") if value else "x"
