"""One reader for the JSON, JSON Lines, YAML and CSV files a user or a run hands to HarnessX.

Every failure to read a file (missing, unreadable, not UTF-8, not the format, nested too deeply to
parse) becomes one `InputError` naming the file and what was expected, never a traceback.
A JSON Lines file may end in a torn line (a kill during an append: the last line has no newline);
that line is dropped and reported, as `search --resume` repairs it; a bad line elsewhere is an error
naming its line number.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harnessx.errors import InputError

PARSE_ERRORS = (json.JSONDecodeError, yaml.YAMLError, csv.Error, RecursionError)


class UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key given twice in one mapping is an error at the second one
    (YAML 1.2 forbids it; PyYAML would keep the last silently, so a harness would lose a field)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, str | int | float | bool) and key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


class DuplicateKey(ValueError):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(f"duplicate key {key!r}")
        out[key] = value
    return out


def read_bytes(path: str | Path, expected: str) -> bytes:
    """The file's bytes; a missing or unreadable file is one error naming it."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(str(path), "file not found", expected) from None
    except IsADirectoryError:
        raise InputError(str(path), "is a directory, not a file", expected) from None
    except OSError as exc:
        raise InputError(str(path), f"cannot read it ({exc.strerror or exc})", expected) from None


def read_text(path: str | Path, expected: str) -> str:
    """The file's text (UTF-8); a missing, unreadable or non-UTF-8 file is one error naming it."""
    raw = read_bytes(path, expected)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(str(path), f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                         expected) from None


def _problem(exc: BaseException) -> str:
    """A parse error in one short clause."""
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    if isinstance(exc, DuplicateKey):
        return f"cannot parse: {exc} (each key once per object)"
    if isinstance(exc, json.JSONDecodeError):
        return f"cannot parse: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        return f"cannot parse: not valid YAML ({exc.problem} at line {mark.line + 1} column {mark.column + 1})"
    return f"cannot parse it ({' '.join(str(exc).split())[:160]})"


def parse_json(text: str, source: str, expected: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except (json.JSONDecodeError, RecursionError, DuplicateKey) as exc:
        raise InputError(source, _problem(exc), expected) from None


def read_json(path: str | Path, expected: str) -> Any:
    return parse_json(read_text(path, expected), str(path), expected)


def read_yaml(path: str | Path, expected: str) -> Any:
    text = read_text(path, expected)
    try:
        return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except (yaml.YAMLError, RecursionError) as exc:
        raise InputError(str(path), _problem(exc), expected) from None


def read_data(path: str | Path, expected: str) -> Any:
    """A `.json` file as JSON, anything else as YAML (a superset of JSON)."""
    return read_json(path, expected) if Path(path).suffix == ".json" else read_yaml(path, expected)


def read_mapping(path: str | Path, expected: str = "a mapping") -> dict:
    """A JSON or YAML file whose top level must be a mapping."""
    data = read_data(path, expected)
    if not isinstance(data, dict):
        raise InputError(str(path), f"top level is {type(data).__name__}", expected)
    return data


@dataclass
class JsonLines:
    rows: list[Any] = field(default_factory=list)
    torn_tail: int | None = None  # the line number of a torn last line that was dropped


def read_jsonl(path: str | Path, expected: str, *, row_check: Any = None, kind: str = "line") -> JsonLines:
    """One JSON value per line. `row_check(row)` may raise ValueError for a row of the wrong shape.
    A torn last line (no trailing newline) is dropped and reported; a bad line elsewhere is an error."""
    path = Path(path)
    raw = read_bytes(path, expected)
    lines = raw.split(b"\n")
    out = JsonLines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line.decode("utf-8"))
            if row_check is not None:
                row_check(row)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            if number == len(lines):  # no newline after it: an append cut short
                out.torn_tail = number
                break
            problem = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else _problem(exc)
            raise InputError(f"{path}:{number}", f"corrupt {kind} ({problem})", expected) from None
        out.rows.append(row)
    return out


def read_csv(path: str | Path, expected: str, columns: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """A CSV file with a header row holding at least `columns`."""
    path = Path(path)
    text = read_text(path, expected)
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise InputError(str(path), _problem(exc), expected) from None
    missing = [c for c in columns if not rows or c not in rows[0]]
    if missing:
        raise InputError(str(path), f"column {missing[0]!r} missing", expected)
    return rows
