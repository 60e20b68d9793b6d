"""BFCL v4 multi-turn data, read at run time from the installed `bfcl-eval` package (or a copy of its
data folder given with `--bfcl-dir`). Nothing of BFCL's is copied into this repository.

`load_category(name)` gives the entries of one category (base, miss_func, miss_param, long_context)
with their ground truth; `func_docs(classes)` the function docs of the API classes an entry uses.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from harnessx.errors import InputError, one_of

INSTALL = "pip install --no-deps bfcl-eval==2026.3.23 mpmath"
CATEGORIES = ("base", "miss_func", "miss_param", "long_context")


def require_bfcl() -> Path:
    """The installed package's folder; an InputError naming the install command when it is missing."""
    try:
        module = importlib.import_module("bfcl_eval")
        importlib.import_module("mpmath")
    except ModuleNotFoundError:
        raise InputError("--env bfcl", "the BFCL package is not installed", f"it installed with: {INSTALL}") from None
    return Path(module.__file__).parent


def data_dir(bfcl_dir: str | Path | None = None) -> Path:
    root = Path(bfcl_dir) if bfcl_dir else require_bfcl() / "data"
    if not (root / "multi_turn_func_doc").is_dir() or not (root / "possible_answer").is_dir():
        raise InputError(str(root), "not a BFCL data folder",
                         "BFCL_v4_multi_turn_*.json, possible_answer/ and multi_turn_func_doc/ inside")
    return root


@dataclass(frozen=True)
class Entry:
    """One BFCL multi-turn entry: its turns of user messages, initial state and ground truth."""

    id: str
    category: str
    index: int
    questions: list[list[dict]]
    initial_config: dict[str, Any]
    involved_classes: list[str]
    ground_truth: list[list[str]]
    missed_function: dict[str, list[str]] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)  # the entry as BFCL's checker wants it

    @property
    def turns(self) -> int:
        return len(self.questions)

    @property
    def long_context(self) -> bool:
        return "long_context" in self.category


def _jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise InputError(str(path), "file not found", "a BFCL v4 data file")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{number}", f"not valid JSON ({exc.msg})") from None
    return rows


@lru_cache(maxsize=16)
def load_category(category: str, bfcl_dir: str | None = None) -> tuple[Entry, ...]:
    if category not in CATEGORIES:
        raise InputError("category", f"unknown BFCL multi-turn category {category!r}", one_of(CATEGORIES))
    root = data_dir(bfcl_dir)
    name = f"BFCL_v4_multi_turn_{category}.json"
    answers = {row["id"]: row["ground_truth"] for row in _jsonl(root / "possible_answer" / name)}
    entries = []
    for row in _jsonl(root / name):
        for key in ("id", "question", "initial_config", "involved_classes"):
            if key not in row:
                raise InputError(str(root / name), f"entry {row.get('id', '?')}: field '{key}' is missing")
        if row["id"] not in answers:
            raise InputError(str(root / "possible_answer" / name), f"no ground truth for {row['id']}")
        entries.append(Entry(id=row["id"], category=category, index=int(row["id"].rsplit("_", 1)[1]),
                             questions=row["question"], initial_config=row["initial_config"],
                             involved_classes=list(row["involved_classes"]), ground_truth=answers[row["id"]],
                             missed_function=dict(row.get("missed_function") or {}), raw=row))
    return tuple(entries)


@lru_cache(maxsize=32)
def _doc_file(root: str, file_name: str) -> tuple[dict, ...]:
    return tuple(_jsonl(Path(root) / "multi_turn_func_doc" / file_name))


def func_docs(classes: list[str], bfcl_dir: str | None = None) -> list[dict]:
    """The function docs of these API classes, in BFCL's order (class by class)."""
    require_bfcl()
    from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING as FILES

    root = str(data_dir(bfcl_dir))
    docs: list[dict] = []
    for name in classes:
        if name not in FILES:
            raise InputError("involved_classes", f"unknown BFCL API class {name!r}", one_of(sorted(FILES)))
        docs.extend(_doc_file(root, FILES[name]))
    return docs
