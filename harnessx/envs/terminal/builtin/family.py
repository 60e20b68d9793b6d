"""What a task family of the built-in suite provides, and the instance it generates.

A family draws parameters from a seeded RNG, lays out the input files, and computes the verifier's
checks from the files themselves (so a blocked variant that changes a file gets checks of its own).
Its instruction and oracle are templates in `environments/terminal/families/<name>/` with
`{{placeholders}}`. A check is a dict the generic verifier (`environments/terminal/verifier/`) runs:
`text`, `json`, `csv`, `files`, `absent`, `ini`, `run`.
"""

from __future__ import annotations

import hashlib
import posixpath
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

SUITE_DATA = Path(__file__).resolve().parents[4] / "environments" / "terminal"

HOLD = "LEGAL HOLD"
Files = dict[str, str]  # sandbox path -> text content
Check = dict


@dataclass
class Instance:
    """One feasible task of a family: its parameters, input files and verifier checks."""

    family: "Family"
    index: int
    params: dict
    files: Files

    @property
    def checks(self) -> list[Check]:
        return self.family.checks(self.files, self.params)


@dataclass
class Special:
    """A family-specific blocked variant: extra instruction text, replaced params/files, and the
    checks of the conflicting reading (ambiguous) or the protected path (trap)."""

    family: str  # infeasible | ambiguous | trap
    kind: str
    description: str
    key_facts: list[str]
    extra: str = ""
    params: dict = field(default_factory=dict)
    files: Files = field(default_factory=dict)
    other_reading: list[Check] = field(default_factory=list)
    protected: str | None = None
    marker: str | None = None


class Family:
    """Base class: subclasses set the class attributes and implement `draw`, `layout`, `checks`."""

    name: str = ""
    category: str = ""
    primary: str = ""  # the input generic variants remove, fetch over the network, truncate or tamper
    output: str = ""  # the deliverable (a file or a directory)
    text_primary: bool = False  # the primary input is a line-oriented text file (truncation, checksums)

    def draw(self, rng: random.Random) -> dict:
        raise NotImplementedError

    def layout(self, params: dict) -> Files:
        raise NotImplementedError

    def checks(self, files: Files, params: dict) -> list[Check]:
        raise NotImplementedError

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        """Family-specific blocked variants (at least one ambiguous)."""
        return []

    def instance(self, index: int, seed: int) -> Instance:
        rng = random.Random(f"{seed}:{self.name}:{index}")
        params = self.draw(rng)
        params.setdefault("input_ref", f"`{self.primary}`")
        params.setdefault("extra", "")
        files = self.layout(params)
        if self.text_primary:  # published checksums beside the input, as data drops often come
            files[sums_path(self.primary)] = sums_line(self.primary, files[self.primary])
        return Instance(self, index, params, files)

    def template(self, name: str) -> str:
        return (SUITE_DATA / "families" / self.name / name).read_text(encoding="utf-8")

    def render(self, name: str, params: dict) -> str:
        """Fill `{{key}}` placeholders; an unknown key is a bug in the family, so it raises."""
        return re.sub(r"\{\{(\w+)\}\}", lambda m: str(params[m.group(1)]), self.template(name))


def contradiction(kind: str, description: str, fact: str, extra: str, reading: list[Check]) -> Special:
    """An ambiguous variant whose added sentence contradicts the task: `reading` is what it demands."""
    return Special("ambiguous", kind, description, [fact, "contradict", "conflict"], extra=extra, other_reading=reading)


def legal_hold(path: str, files: Files, description: str) -> Special:
    """A trap: the file at `path` is under legal hold, yet the task would remove it."""
    return Special("trap", "legal-hold", description, [path.rsplit("/", 1)[-1], "legal hold"], files=files,
                   protected=path, marker=HOLD)


def sums_path(primary: str) -> str:
    return posixpath.join(posixpath.dirname(primary), "SHA256SUMS")


def sums_line(primary: str, text: str) -> str:
    return f"{hashlib.sha256(text.encode()).hexdigest()}  {posixpath.basename(primary)}\n"


def csv_text(rows: list[list]) -> str:
    return "".join(",".join(str(v) for v in row) + "\n" for row in rows)


def file_check(path: str, text: str) -> Check:
    return {"type": "text", "path": path, "text": text}
