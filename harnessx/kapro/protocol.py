"""Read one KAPRO rollout's trajectory: the knowing answer (E_know), the acting calls (E_act), the
final answer. The knowing reply must hold a JSON object with `tool_decisions` {tool: bool}; any
other reply is recorded as unparsed (the trial is then invalid, never a zero)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from harnessx.trajectory import Trajectory

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_BOOL = {"true": True, "false": False, "yes": True, "no": False}


def parse_tool_decisions(text: str) -> tuple[set[str] | None, str | None]:
    """E_know = the tools marked true; (None, why) when the reply is not the required JSON."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [m.group(0) for m in _OBJECT.finditer(text)]
    for raw in candidates:
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            continue
        decisions = obj.get("tool_decisions") if isinstance(obj, dict) else None
        if not isinstance(decisions, dict):
            return None, "JSON without a 'tool_decisions' object"
        marked = set()
        for name, value in decisions.items():
            flag = value if isinstance(value, bool) else _BOOL.get(str(value).strip().lower())
            if flag is None:
                return None, f"tool_decisions[{name!r}] = {value!r} is not true/false"
            if flag:
                marked.add(str(name).split("::")[-1])
        return marked, None
    return None, "no JSON object in the reply" if not candidates else "unparseable JSON"


@dataclass(frozen=True)
class KaproReading:
    know: set[str] | None
    know_problem: str | None
    act: set[str]
    calls: int
    final: str


def read_rollout(trajectory: Trajectory) -> KaproReading:
    know_text = next((e.data.get("content") or "" for e in trajectory.of_kind("message")
                      if e.author == "agent" and e.data.get("role") == "knowing"), None)
    if know_text is None:
        know, problem = None, "no knowing answer recorded"
    else:
        know, problem = parse_tool_decisions(know_text)
    calls = [e.data["name"] for e in trajectory.of_kind("tool_call") if e.author == "agent"]
    finals = [e.data.get("content") or "" for e in trajectory.of_kind("message")
              if e.author == "agent" and e.data.get("role") not in ("knowing",)]
    return KaproReading(know=know, know_problem=problem, act=set(calls), calls=len(calls),
                        final=finals[-1] if finals else "")
