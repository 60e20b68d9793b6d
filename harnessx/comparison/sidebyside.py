"""Two trajectories of the same task side by side, aligned by step, with the first divergence marked.

Each event becomes one short line (who did what: a tool call with its arguments, a tool result, a
message, a deferral, the end). Bookkeeping events (model-call accounting, the start record) are left
out. The harness's own system prompt differs by construction between two harnesses, so the first
divergence is the first *other* line that differs: where the agent or the environment behaved
differently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import zip_longest

from harnessx.trajectory import Event, Trajectory

HIDDEN = ("start", "model_call")
WIDTH = 160  # characters of one event's line, before it is cut with "…"


@dataclass(frozen=True)
class Row:
    step: int | None
    first: str
    second: str
    differs: bool


def _short(value: object, width: int = WIDTH) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def describe(event: Event) -> str:
    """One line for one event: who did what."""
    d = event.data
    if event.kind == "message":
        role = d.get("role", "")
        who = event.author if role in ("", event.author) else f"{event.author} {role}"
        return _short(f"{who}: {d.get('content', '')}")
    if event.kind == "tool_call":
        return _short(f"call {d.get('name')}({_short(d.get('arguments', {}), WIDTH)})")
    if event.kind == "tool_result":
        return _short(f"{'error' if d.get('error') else 'result'} {d.get('name')}: {d.get('content', '')}")
    if event.kind == "abandon":
        return _short(f"DEFER ({d.get('mechanism', '')}) {d.get('category', '')}: {d.get('reason', '')}")
    if event.kind == "tools":
        return _short("tools offered: " + ", ".join(t["function"]["name"] for t in d.get("tools", [])))
    if event.kind == "end":
        return _short(f"end {d.get('status')} reward {d.get('reward')} ({d.get('stop_reason')})")
    if event.kind == "state_change":
        return _short(f"state {d.get('target')}: {d.get('change')}" + (" FORBIDDEN" if d.get("forbidden") else ""))
    return _short(f"{event.kind}: {d}")


def _is_system(event: Event) -> bool:
    """The harness's own setup, different by construction between two harnesses: its messages and the
    tools it offers (with or without a deferral tool)."""
    return event.kind == "tools" or (event.kind == "message" and event.author == "harness")


def align(first: Trajectory, second: Trajectory) -> tuple[list[Row], int | None]:
    """The two trajectories' lines, paired in order, and the index of the first divergent row that
    is not the harness's own prompt text (None when the two runs behaved alike)."""
    a = [e for e in first if e.kind not in HIDDEN]
    b = [e for e in second if e.kind not in HIDDEN]
    rows: list[Row] = []
    divergence = None
    for ea, eb in zip_longest(a, b):
        la, lb = (describe(e) if e is not None else "" for e in (ea, eb))
        step = (ea or eb).step
        rows.append(Row(step, la, lb, la != lb))
        harness_text = all(e is None or _is_system(e) for e in (ea, eb))
        if divergence is None and la != lb and not harness_text:
            divergence = len(rows) - 1
    return rows, divergence
