"""Parallel tool calls: which of the next planned calls the simulated agent sends in ONE reply.

A function-calling model answers a request that needs several calls with several `tool_calls` in
one assistant message (OpenAI's parallel tool calls; BFCL's parallel and multiple categories, and
most multi-turn turns). The simulated agent does the same when its profile sets
`parallel_calls: true` and the tools came as the API's native `tools` (in text and constrained
formats a reply is one JSON object, so there it sends one call per reply).

A call joins the reply only if it is independent of the calls before it in that reply: every
value of its arguments is already in what the agent has been shown (system prompt, user messages,
tool results so far). An argument it could only learn from an earlier call's result (an id that
call returns) ends the batch, and that call goes in a later reply once the result is back. The
runtime executes a reply's calls in order, each recorded and answered as if sent one by one, so
grouping never changes what runs or how it is scored; it only saves model calls.

Where it applies: a multi-turn task's turn (`harnessx.sim.turns`), whose calls the user's request
fixes. A single-turn episode still runs its plan one call per reply, since there each result (the
decisive evidence) decides the next move.
"""

from __future__ import annotations

from collections.abc import Iterable

from harnessx.sim.plan import Call


def _values(value: object) -> Iterable[str]:
    """The argument values an agent must have seen to write them (booleans and None carry none)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _values(item)
    elif isinstance(value, str):
        if value.strip():
            yield value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield f"{value:g}" if isinstance(value, float) else str(value)


def visible(call: Call, shown: str) -> bool:
    """Whether every argument value of `call` occurs in `shown` (case-insensitive)."""
    text = shown.lower()
    return all(v.lower() in text for v in _values(call[1]))


def batch(steps: list[Call], shown: str, enabled: bool) -> list[Call]:
    """The calls to send now: the first of `steps` and, when `enabled`, the independent ones that
    follow it (see the module docstring). Never empty when `steps` is not."""
    if not steps:
        return []
    out = [steps[0]]
    if enabled:
        for step in steps[1:]:
            if not visible(step, shown):
                break
            out.append(step)
    return out
