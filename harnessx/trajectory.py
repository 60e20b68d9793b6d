"""The authenticated trajectory: an append-only, hash-chained event log of one rollout.

Every event carries `prev` (the hash of the event before it) and `hash` (sha256 over its own
content and `prev`), so editing, inserting or dropping an event breaks `verify()`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Author = Literal["agent", "harness", "environment", "user"]
EventKind = Literal[
    "start",          # task id, harness hash, model, seed
    "message",        # role, content (author: agent / user / harness)
    "tools",          # the tool schemas the harness offers the model (OpenAI form) and their format
    "tool_call",      # name, arguments, id
    "tool_result",    # id, name, content, error
    "state_change",   # target, change, forbidden
    "evidence",       # the decisive evidence became observable
    "abandon",        # certified deferral: mechanism, reason, category
    "model_call",     # input/output tokens, cost, latency, model
    "malformed",      # model output that could not be used
    "error",          # error_type, detail
    "note",           # what an environment's guard did (e.g. agent processes killed before verification)
    "end",            # reward, status, reason the loop stopped
]
GENESIS = "0" * 64


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)
    seq: int
    kind: EventKind
    step: int
    author: Author
    t: float
    data: dict[str, Any]
    prev: str
    hash: str

    def content_hash(self) -> str:
        body = json.dumps(
            {"seq": self.seq, "kind": self.kind, "step": self.step, "author": self.author,
             "t": self.t, "data": self.data, "prev": self.prev},
            sort_keys=True, separators=(",", ":"), default=str,
        )
        return hashlib.sha256(body.encode()).hexdigest()


class TamperError(ValueError):
    """The trajectory's hash chain does not verify."""


class Trajectory:
    """The append-only, hash-chained event log of one rollout (see the module docstring).

    `append` is the only way to add an event, and events are immutable: the runtime appends them,
    nothing edits them afterwards. Scoring reads them through `of_kind` and `first`, and `verify()`
    raises `TamperError` when an event was edited, inserted or dropped. Saved and loaded as JSON lines.
    """

    def __init__(self, events: list[Event] | None = None):
        self._events: list[Event] = list(events or [])
        self._t0 = time.monotonic()

    def append(self, kind: EventKind, author: Author, step: int, **data: Any) -> Event:
        """Add one event (its data made JSON-able), chained to the last one; returns it."""
        prev = self._events[-1].hash if self._events else GENESIS
        t = round(time.monotonic() - self._t0, 6)
        draft = Event(seq=len(self._events), kind=kind, step=step, author=author, t=t,
                      data=_jsonable(data), prev=prev, hash="")
        event = draft.model_copy(update={"hash": draft.content_hash()})
        self._events.append(event)
        return event

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def of_kind(self, *kinds: EventKind) -> list[Event]:
        """The events of these kinds, in order."""
        return [e for e in self._events if e.kind in kinds]

    def first(self, kind: EventKind) -> Event | None:
        """The first event of this kind, or None."""
        return next((e for e in self._events if e.kind == kind), None)

    @property
    def head(self) -> str:
        return self._events[-1].hash if self._events else GENESIS

    def verify(self) -> None:
        """Raise TamperError at the first event whose chain link or content hash is wrong."""
        prev = GENESIS
        for i, event in enumerate(self._events):
            if event.seq != i:
                raise TamperError(f"event {i}: sequence number {event.seq} (events dropped or reordered)")
            if event.prev != prev:
                raise TamperError(f"event {i}: chain link broken")
            if event.content_hash() != event.hash:
                raise TamperError(f"event {i}: content does not match its hash")
            prev = event.hash

    def is_authentic(self) -> bool:
        try:
            self.verify()
        except TamperError:
            return False
        return True

    def to_jsonl(self) -> str:
        return "".join(e.model_dump_json() + "\n" for e in self._events)

    def save(self, path: str | Path) -> None:
        """Write it as JSON lines, atomically (a temporary file renamed into place)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        try:
            tmp.write_text(self.to_jsonl(), encoding="utf-8")
            tmp.replace(path)
        finally:  # a full disk leaves no half-written .tmp behind
            tmp.unlink(missing_ok=True)

    @classmethod
    def from_jsonl(cls, text: str) -> "Trajectory":
        return cls([Event.model_validate_json(line) for line in text.splitlines() if line.strip()])

    @classmethod
    def load(cls, path: str | Path) -> "Trajectory":
        """Read a saved trajectory; it is not verified here (call `verify`)."""
        return cls.from_jsonl(Path(path).read_text(encoding="utf-8"))


def _jsonable(value: Any) -> Any:
    """Round-trip through JSON so stored and recomputed hashes agree."""
    return json.loads(json.dumps(value, default=str))
