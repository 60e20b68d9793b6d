"""Lineage: which round and proposal introduced each line and switch of a harness.

The accepted chain runs R0 → … → the selected harness through ledger `parent` links. A line's
origin is the first harness on the chain from which that line is present in every later one;
likewise for a switch value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harnessx.harness import Harness
from harnessx.harness.model import COMPONENTS


@dataclass(frozen=True)
class Origin:
    round: int
    slot: int
    hash: str
    edit: str


@dataclass(frozen=True)
class Line:
    component: str
    text: str
    origin: Origin | None


def chain(ledger: list[dict[str, Any]], leaf: str) -> list[dict[str, Any]]:
    """Ledger rows from R0 to `leaf` along parent links (empty when `leaf` is not in the ledger)."""
    by_hash: dict[str, dict[str, Any]] = {}
    for row in ledger:
        by_hash.setdefault(row["hash"], row)
    out, seen, cur = [], set(), by_hash.get(leaf)
    while cur is not None and cur["hash"] not in seen:
        out.append(cur)
        seen.add(cur["hash"])
        cur = by_hash.get(cur.get("parent")) if cur.get("parent") else None
    return out[::-1]


def _origin(row: dict[str, Any]) -> Origin:
    return Origin(row["round"], row.get("slot", 0), row["hash"], row.get("edit") or "initial harness (R0)")


def lines(rows: list[dict[str, Any]], harnesses: list[Harness]) -> list[Line]:
    """Every non-empty component line of the last harness with the chain row that introduced it."""
    leaf = harnesses[-1]
    out: list[Line] = []
    for comp in COMPONENTS:
        for text in leaf.text(comp).splitlines():
            if not text.strip():
                continue
            origin = None
            for i in range(len(harnesses) - 1, -1, -1):
                if text in harnesses[i].text(comp).splitlines():
                    origin = _origin(rows[i])
                else:
                    break
            out.append(Line(comp, text, origin))
    return out


def switches(rows: list[dict[str, Any]], harnesses: list[Harness]) -> list[tuple[str, Any, Origin | None]]:
    leaf = harnesses[-1].switches.model_dump(mode="json")
    out = []
    for key, value in leaf.items():
        origin = None
        for i in range(len(harnesses) - 1, -1, -1):
            if harnesses[i].switches.model_dump(mode="json").get(key) == value:
                origin = _origin(rows[i])
            else:
                break
        out.append((key, value, origin))
    return out
