"""The host's Debian package database, read the way dpkg itself records it: which packages are
installed, what each depends on, and the files each installed (`/var/lib/dpkg/info/<pkg>.list`, what
`dpkg -L` prints). Read once per process, no subprocess."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

DPKG = Path("/var/lib/dpkg")
CLOSURE_LIMIT = 400  # packages followed through Depends (a guard; a tool's closure is far smaller)


class Package(NamedTuple):
    info: str  # the name of its file list in dpkg's info directory (`name` or `name:arch`)
    depends: list[str]  # through Depends and Pre-Depends, every alternative
    essential: bool  # `Essential: yes`: part of every Debian system (coreutils, grep, bash...)


@functools.lru_cache(maxsize=1)
def installed() -> dict[str, Package]:
    """Installed package name -> Package, read from dpkg's status file."""
    try:
        text = (DPKG / "status").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    found = {}
    for block in text.split("\n\n"):
        fields, key = {}, ""
        for line in block.splitlines():
            if line[:1] in (" ", "\t"):
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        name = fields.get("Package")
        if not name or "install ok installed" not in fields.get("Status", ""):
            continue
        deps = ", ".join(fields.get(f, "") for f in ("Depends", "Pre-Depends")).replace("|", ",")
        names = [d.strip().split(" ")[0].split(":")[0] for d in deps.split(",") if d.strip()]
        arch = fields.get("Architecture", "all")
        info = name if (DPKG / "info" / f"{name}.list").is_file() else f"{name}:{arch}"
        found[name] = Package(info, names, fields.get("Essential") == "yes")
    return found


def closure(packages: tuple[str, ...]) -> list[str]:
    """The installed packages among `packages` and everything they depend on."""
    known, seen = installed(), set()
    todo = [p.split("=")[0] for p in packages]
    while todo and len(seen) < CLOSURE_LIMIT:
        name = todo.pop()
        if name in known and name not in seen:
            seen.add(name)
            todo += known[name].depends
    return sorted(seen)


def files_of(package: str) -> list[str]:
    """What `dpkg -L package` lists (dpkg's own record of the files it installed)."""
    info = installed()[package].info if package in installed() else package
    try:
        return (DPKG / "info" / f"{info}.list").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
