"""What the simulated agent recovers from the messages it is sent (it keeps no state between calls).

Position in the episode = the tool calls it already made and the results it got back; the last
message tells what it is answering (a tool result, the task, a self-check, a report request, or a
user's reply).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from harnessx.sim.cues import message_kind

_TEXT_RESULT = "Tool result ("
_TEXT_TOOL_LINE = re.compile(r"^- ([A-Za-z0-9_\-]+): ", re.MULTILINE)
TEXT_TOOL_MARKER = '{"tool": "<name>"'


@dataclass
class Conversation:
    system: str = ""
    first_user: str = ""
    calls: list[tuple[str, dict]] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    finals: int = 0              # agent messages without a tool call
    last: str = "task"           # task | assistant | tool_result | check | report | user
    harness_messages: list[str] = field(default_factory=list)  # self-checks and report requests seen
    turn_starts: list[int] = field(default_factory=list)  # len(calls) when each later user turn began
    shown: list[str] = field(default_factory=list)  # every text the agent was sent (system, user, tool results)


def _text_call(content: str) -> tuple[str, dict] | None:
    start = content.find("{")
    if start < 0:
        return None
    try:
        obj = json.loads(content[start:])
    except json.JSONDecodeError:
        return None
    if isinstance(obj, dict) and isinstance(obj.get("tool"), str):
        return obj["tool"], dict(obj.get("arguments") or {})
    return None


def _assistant_calls(message: dict) -> list[tuple[str, dict]]:
    calls = []
    for call in message.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else getattr(call, "function", None)
        name = fn.get("name") if isinstance(fn, dict) else getattr(fn, "name", "")
        raw = fn.get("arguments") if isinstance(fn, dict) else getattr(fn, "arguments", "{}")
        try:
            args = json.loads(raw) if isinstance(raw, str) else dict(raw or {})
        except json.JSONDecodeError:
            args = {}
        calls.append((name, args))
    if not calls and message.get("content"):
        text_call = _text_call(str(message["content"]))
        calls = [text_call] if text_call else []
    return calls


def read(messages: list[dict]) -> Conversation:
    conv = Conversation()
    for message in messages:
        role, content = message.get("role"), str(message.get("content") or "")
        if role != "assistant":
            conv.shown.append(content)
        if role == "system":
            conv.system = content
        elif role == "assistant":
            calls = _assistant_calls(message)
            conv.calls.extend(calls)
            conv.finals += 0 if calls else 1
            conv.last = "assistant"
        elif role == "tool" or (role == "user" and content.startswith(_TEXT_RESULT)):
            conv.results.append(content)
            conv.last = "tool_result"
        elif role == "user":
            if not conv.first_user:
                conv.first_user = content
                conv.last = "task"
                continue
            kind = message_kind(content) or "user"
            if kind != "user":
                conv.harness_messages.append(content)
            else:
                conv.turn_starts.append(len(conv.calls))
            conv.last = kind
    return conv


@lru_cache(maxsize=1024)
def text_tool_names(system: str) -> frozenset[str]:
    """Tool names listed in a text-format tool block (models without native tools)."""
    return frozenset(_TEXT_TOOL_LINE.findall(system)) if TEXT_TOOL_MARKER in system else frozenset()
