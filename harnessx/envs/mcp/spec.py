"""The MCP suite's two input files, read with one line per problem (file, line, field, expected).

The suite file (`mcp.yaml`) names the server and the task file:

    server: {command: "python server.py"}   # or {url: "http://127.0.0.1:8000/mcp"}; env, cwd, timeout
    tasks: tasks.yaml                       # a YAML list or JSONL, one task a record

A task record (docs/environments/mcp.md, field by field) gives the request, its gold plan
(`expected_calls`), how success is checked (`success`: calls that must be made, or a read-only
checking call and its expected result), and optionally the tools it forbids, other accepted
solutions, setup calls, and the ambiguous / trap variants the user writes.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harnessx.errors import InputError, one_of

SUITE_FILE = "mcp.yaml"  # what a folder given to --tasks-dir must hold


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Call(Strict):
    """One tool call: the tool's name and its arguments (compared key by key where a check reads it)."""

    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class CheckingCall(Call):
    """A read-only call made after the episode; the task succeeded when its result matches `expect`
    (a mapping: every key given must be equal in the result's JSON; anything else: equal)."""

    expect: Any


class Success(Strict):
    """How success is checked: `calls` that must each have been made (successfully, with the arguments
    given), or a checking `call` and its expected result. Default: the expected state-changing calls."""

    calls: list[Call] | None = None
    call: CheckingCall | None = None

    @model_validator(mode="after")
    def _one(self) -> Success:
        if (self.calls is None) == (self.call is None):
            raise ValueError("give exactly one of 'calls' or 'call'")
        return self


class EvidenceSpec(Strict):
    """Where the blocker shows: a call (`tool`, and `arguments` it must match) or a `marker` text that
    appears in a result; neither = in the request itself."""

    tool: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    marker: str | None = None


class Variant(Strict):
    """A blocked variant the user writes: the same source, a blocker the agent should find and name."""

    blocker: str = Field(min_length=1)
    key_facts: list[str] = Field(min_length=1)
    evidence: EvidenceSpec | None = None


class Ambiguous(Variant):
    request: str = Field(min_length=1)  # the under-specified request


class Trap(Variant):
    setup: list[Call] = Field(min_length=1)  # calls that make acting harmful (run before the agent)
    evidence: EvidenceSpec  # a trap shows only through what the agent reads


class TaskRecord(Strict):
    id: str = Field(min_length=1)
    request: str = Field(min_length=1)
    expected_calls: list[Call] = Field(min_length=1)
    split: Literal["search", "heldout", "independent"] | None = None
    success: Success | None = None
    solutions: list[list[Call]] = Field(default_factory=list)
    forbidden_tools: list[str] = Field(default_factory=list)
    setup: list[Call] = Field(default_factory=list)
    answer: str | None = None
    infeasible: bool = True
    critical_tools: list[str] | None = None
    ambiguous: Ambiguous | None = None
    trap: Trap | None = None

    def calls(self) -> list[tuple[str, Call]]:
        """(field path, call) for every call the record makes or checks (their arguments are checked)."""
        out = [(f"expected_calls[{i}]", c) for i, c in enumerate(self.expected_calls)]
        out += [(f"solutions[{i}][{j}]", c) for i, s in enumerate(self.solutions) for j, c in enumerate(s)]
        out += [(f"setup[{i}]", c) for i, c in enumerate(self.setup)]
        out += [("success.call", self.success.call)] if self.success is not None and self.success.call else []
        out += [(f"trap.setup[{i}]", c) for i, c in enumerate(self.trap.setup)] if self.trap is not None else []
        return out

    def tool_fields(self) -> list[tuple[str, str]]:
        """(field path, tool name) for every tool the record names."""
        out = [(f"expected_calls[{i}].tool", c.tool) for i, c in enumerate(self.expected_calls)]
        out += [(f"solutions[{i}][{j}].tool", c.tool) for i, s in enumerate(self.solutions) for j, c in enumerate(s)]
        out += [(f"setup[{i}].tool", c.tool) for i, c in enumerate(self.setup)]
        out += [(f"forbidden_tools[{i}]", t) for i, t in enumerate(self.forbidden_tools)]
        out += [(f"critical_tools[{i}]", t) for i, t in enumerate(self.critical_tools or [])]
        if self.success is not None:
            out += [(f"success.calls[{i}].tool", c.tool) for i, c in enumerate(self.success.calls or [])]
            out += [("success.call.tool", self.success.call.tool)] if self.success.call else []
        for name in ("ambiguous", "trap"):
            variant = getattr(self, name)
            if variant is not None and variant.evidence is not None and variant.evidence.tool:
                out.append((f"{name}.evidence.tool", variant.evidence.tool))
        if self.trap is not None:
            out += [(f"trap.setup[{i}].tool", c.tool) for i, c in enumerate(self.trap.setup)]
        return out


class ServerSpec(Strict):
    """How to reach the MCP server: a stdio `command` (started per episode) or an HTTP `url`."""

    command: str | list[str] | None = None
    url: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    timeout: float = Field(default=30.0, gt=0)  # seconds to wait on a tool call's answer
    start_timeout: float = Field(default=120.0, gt=0)  # seconds to wait for start-up (initialize, tools/list)

    @model_validator(mode="after")
    def _one(self) -> ServerSpec:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of 'command' or 'url'")
        return self

    def argv(self) -> list[str]:
        assert self.command is not None
        return shlex.split(self.command) if isinstance(self.command, str) else list(self.command)

    def describe(self) -> str:
        return self.url or shlex.join(self.argv())


class SuiteFile(Strict):
    server: ServerSpec
    tasks: str = Field(min_length=1)


def _field(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _raise(where: str, exc: ValidationError, known: list[str]) -> None:
    errors = exc.errors()  # an unknown field first: it is usually the misspelling of a missing one
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith(("function-", "list[", "dict["))))
    field = _field(loc) or "(record)"
    if err["type"] == "extra_forbidden":
        raise InputError(where, f"unknown field {field!r}", one_of(known) if len(loc) == 1 else None) from None
    if err["type"] == "missing":
        raise InputError(where, f"missing field {field!r}") from None
    raise InputError(where, f"field {field!r}: {err['msg']}") from None


def _records(path: Path) -> list[tuple[int, Any]]:
    """(line, record) pairs of a JSONL file or a YAML list."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        out = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    out.append((n, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise InputError(f"{path}:{n}", f"not JSON: {exc.msg}", "one JSON object a line") from None
        return out
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputError(str(path), f"not YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, list):
        raise InputError(str(path), "not a list of task records", "a YAML list (or a .jsonl file)")
    return [(item.start_mark.line + 1, record) for item, record in zip(node.value, data)]


def read_tasks(path: Path) -> list[tuple[str, TaskRecord]]:
    """Every task record with where it is (`file:line`); one InputError for the first bad one."""
    if not path.is_file():
        raise InputError("tasks", f"no such file {str(path)!r}", "a YAML or JSONL task file")
    out, seen = [], {}
    for line, record in _records(path):
        where = f"{path}:{line}"
        if not isinstance(record, dict):
            raise InputError(where, "a task record must be a mapping")
        try:
            task = TaskRecord.model_validate(record)
        except ValidationError as exc:
            _raise(where, exc, sorted(TaskRecord.model_fields))
        if task.id in seen:
            raise InputError(where, f"field 'id': {task.id!r} is also the id at line {seen[task.id]}", "unique ids")
        seen[task.id] = line
        out.append((where, task))
    if not out:
        raise InputError(str(path), "no task records")
    return out


def read_suite(path: Path) -> tuple[SuiteFile, Path]:
    """The suite file (a folder holding `mcp.yaml`, or the file itself) and where it is."""
    path = path / SUITE_FILE if path.is_dir() else path
    if not path.is_file():
        raise InputError("--tasks-dir", f"no MCP suite file {str(path)!r}", f"a folder holding {SUITE_FILE}, or the file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise InputError(str(path), f"not YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise InputError(str(path), "not a mapping", "server: and tasks:")
    try:
        return SuiteFile.model_validate(data), path
    except ValidationError as exc:
        _raise(str(path), exc, sorted(SuiteFile.model_fields))
        raise  # unreachable: _raise always raises
