"""Plug-ins are found, not listed: the one mechanism behind every seam's registry.

Each kind of plug-in (environment, benchmark, proposer, acceptance rule) has one seam module that
declares a `Registry` for its entry-point group (`harnessx.environments`, `harnessx.benchmarks`,
`harnessx.proposers`, `harnessx.acceptance`). A name given on the command line is one of:

- a registered name: an entry point of that group, from any installed distribution;
- an import path `package.module:Attr` (no install needed, only importable).

HarnessX's own plug-ins register the same way, in its `pyproject.toml`. Run from a checkout, the
entry points of HarnessX itself are read from that `pyproject.toml` (an editable install's metadata
is a copy frozen at install time, so a built-in added since would be missing); installed from a
wheel, from its metadata. Every other distribution's come from its metadata.

Listing reads names and targets only: no plug-in is imported until one is used. A plug-in that fails
to import, or is of the wrong kind, is one `InputError` line naming the entry point or import path
and the exception's first line (exit 2).
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import distributions
from pathlib import Path

from harnessx.errors import InputError, one_of

SELF = "harnessx"  # the distribution whose entry points are the built-ins
CHECKOUT_PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@dataclass(frozen=True)
class Entry:
    """One registered plug-in: its name, its `module:attr` target and the distribution declaring it."""

    name: str
    target: str
    dist: str

    @property
    def builtin(self) -> bool:
        return self.dist == SELF

    def where(self, group: str) -> str:
        return f"entry point '{self.name} = {self.target}' (group {group}, package {self.dist})"


def _normal(dist: str) -> str:
    return dist.lower().replace("_", "-").replace(".", "-")


@cache
def _checkout_groups() -> dict[str, dict[str, str]] | None:
    """HarnessX's own entry points from the checkout's pyproject.toml, or None when not run from one."""
    try:
        project = tomllib.loads(CHECKOUT_PYPROJECT.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return project.get("entry-points", {}) if project.get("name") == SELF else None


@cache
def _installed() -> tuple[tuple[str, str, str, str], ...]:
    """(group, name, target, distribution) of every installed entry point in a harnessx group: one
    scan of the installed metadata per process."""
    seen: set[str] = set()
    rows = []
    for dist in distributions():  # the first of a name on sys.path wins, as importing would
        name = _normal(dist.metadata["Name"] or "?")
        if name in seen:
            continue
        seen.add(name)
        rows += [(ep.group, ep.name, ep.value, name) for ep in dist.entry_points if ep.group.startswith(f"{SELF}.")]
    return tuple(rows)

def entries(group: str) -> dict[str, list[Entry]]:
    """Every registered plug-in of `group` by name: the built-ins first in pyproject order, then the
    others by name. A name two distributions register has two entries (refused when used)."""
    own = _checkout_groups()
    found: dict[str, list[Entry]] = {}
    if own is not None:
        for name, target in own.get(group, {}).items():
            found.setdefault(name, []).append(Entry(name, target, SELF))
    installed = [(name, target, dist) for g, name, target, dist in _installed() if g == group]
    own_installed = [row for row in installed if row[2] == SELF] if own is None else []
    for name, target, dist in own_installed + sorted(row for row in installed if row[2] != SELF):
        if Entry(name, target, dist) not in found.get(name, []):
            found.setdefault(name, []).append(Entry(name, target, dist))
    return found


def summary(exc: BaseException) -> str:
    """An exception as `Type: first line of its message`."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def import_target(target: str) -> object:
    """The object an import path `package.module:Attr.Sub` names; raises what importing raises."""
    module_name, _, attr = target.partition(":")
    obj: object = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def is_import_path(spec: str) -> bool:
    module_name, sep, attr = spec.partition(":")
    return bool(sep and module_name and attr)


@dataclass(frozen=True)
class Registry:
    """The plug-ins of one kind.

    group: the entry-point group; option: the CLI option that names one (`--env`);
    noun: what one is called in messages ("environment"); kind: what a valid one is, for messages
    ("a class with tasks() and make_env()"); is_kind: whether a loaded object is of the kind."""

    group: str
    option: str
    noun: str
    kind: str
    is_kind: Callable[[object], bool]

    def names(self) -> list[str]:
        """The registered names (nothing is imported)."""
        return list(entries(self.group))

    def __contains__(self, spec: object) -> bool:
        return isinstance(spec, str) and (spec in entries(self.group) or is_import_path(spec))

    def expected(self) -> str:
        return f"{one_of(self.names())}, or an import path package.module:Class"

    def entry(self, name: str) -> Entry:
        """The one entry registered under `name`; an unknown or twice-registered name is an InputError."""
        found = entries(self.group).get(name)
        if not found:
            raise InputError(self.option, f"unknown {self.noun} {name!r}", self.expected())
        if len(found) > 1:
            raise InputError(self.option, f"{self.noun} {name!r} is registered twice: "
                             + " and ".join(e.where(self.group) for e in found), "one registration per name")
        return found[0]

    def check(self, spec: str) -> None:
        """Refuse, as one line, a name nothing registers or an import path that cannot be had; a
        registered name is not imported here (that waits for its use)."""
        if is_import_path(spec):
            self.load(spec)
        else:
            self.entry(spec)

    def load(self, spec: str) -> object:
        """The plug-in a name or an import path names, imported and checked to be of this kind."""
        if is_import_path(spec):
            target, where = spec, f"import path {spec!r}"
        else:
            entry = self.entry(spec)
            target, where = entry.target, entry.where(self.group)
        try:
            obj = import_target(target)
        except Exception as exc:  # a plug-in's import may raise anything: named, one line
            verb = "does not import" if spec == target else "failed to load"
            raise InputError(self.option, f"{where} {verb}: {summary(exc)}",
                             "an importable package.module:Class" if spec == target else None) from None
        if not self.is_kind(obj):
            raise InputError(self.option, f"{where} is {_described(obj)}, not a valid {self.noun}", self.kind)
        return obj


def _described(obj: object) -> str:
    if isinstance(obj, type):
        return f"the class {obj.__module__}.{obj.__qualname__}"
    return f"a {type(obj).__name__}"


def subclass_of(base: str) -> Callable[[object], bool]:
    """A check: the object is a concrete class deriving from the class `base` ("module:Class", imported
    when first checked, so a seam's light name module need not import its heavy base)."""
    def check(obj: object) -> bool:
        return isinstance(obj, type) and issubclass(obj, import_target(base)) and not getattr(  # type: ignore[arg-type]
            obj, "__abstractmethods__", None)

    return check
