"""The subset of a task's Dockerfile that a workspace is built from.

`WORKDIR`, `COPY`/`ADD` (local sources), `ENV` and `RUN` are kept in order. A `RUN` whose every
`&&` part only provisions packages (apt/apt-get, pip, cleaning apt lists) becomes a requirement that
the host must already meet; any other `RUN` is a setup command replayed in the sandbox.
`FROM` names the image the docker backend prefers; other instructions are ignored.

A `COPY`/`ADD` source is read from the build context only, as Docker reads it: an absolute source, a
source that leaves the context through `..`, or one whose path resolves outside the context through a
symlink is refused (`check_sources`), one line naming the Dockerfile, the line and the source.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from harnessx.errors import InputError

PROVISION = re.compile(r"^(apt-get|apt|pip3?|python3? -m pip|rm -rf /var/lib/apt/lists)\b")


@dataclass
class Step:
    kind: str  # "copy" or "run"
    args: tuple[str, ...]
    cwd: str
    line: int = 0  # the Dockerfile line the step starts on (0: not from a Dockerfile)


@dataclass
class Recipe:
    image: str | None = None
    workdir: str = "/app"
    steps: list[Step] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    apt: list[str] = field(default_factory=list)
    pip: list[str] = field(default_factory=list)


def numbered_lines(text: str) -> list[tuple[int, str]]:
    """(first physical line number, logical line): continuation lines joined, comments and blanks dropped."""
    lines, current, start = [], "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if stripped.startswith("#") or (not current and not stripped):
            continue
        start = start or number
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        lines.append((start, (current + stripped).strip()))
        current, start = "", 0
    if current.strip():
        lines.append((start, current.strip()))
    return lines


def logical_lines(text: str) -> list[str]:
    """Join continuation lines and drop comments and blanks."""
    return [line for _, line in numbered_lines(text)]


def packages(command: str) -> tuple[list[str], list[str]]:
    """(apt packages, pip requirements) that a shell command installs."""
    apt, pip = [], []
    for part in re.split(r"&&|;|\|\||\n", command):
        words = part.split()
        if len(words) > 2 and words[0] in ("apt-get", "apt") and "install" in words:
            apt += [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
        elif "pip" in " ".join(words[:3]) and "install" in words:
            pip += [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
    return apt, pip


def is_provisioning(command: str) -> bool:
    parts = [p.strip() for p in command.split("&&") if p.strip()]
    return bool(parts) and all(PROVISION.match(p) for p in parts)


def expand(value: str, env: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), value)


def parse(text: str, source: str) -> Recipe:
    """Parse a Dockerfile's text; `source` names it in error messages."""
    recipe = Recipe()
    for number, line in numbered_lines(text):
        op, _, rest = line.partition(" ")
        op, rest = op.upper(), rest.strip()
        if op == "FROM":
            recipe.image = rest.split()[0] if rest else None
        elif op == "WORKDIR":
            recipe.workdir = expand(rest, recipe.env) if rest.startswith("/") else f"{recipe.workdir}/{rest}"
        elif op == "ENV":
            key, _, value = rest.replace("=", " ", 1).partition(" ")
            recipe.env[key] = expand(value.strip().strip('"'), recipe.env)
        elif op in ("COPY", "ADD"):
            if any(w.startswith("--from") for w in shlex.split(rest)):
                raise InputError(f"{source} line {number}", f"{op} --from (another build stage or image) cannot be "
                                 "replayed into a workspace", "sources from the build context")
            words = [w for w in shlex.split(rest) if not w.startswith("--")]
            if len(words) < 2:
                raise InputError(f"{source} line {number}", f"{op} needs a source and a destination: {line!r}")
            for src in words[:-1]:
                recipe.steps.append(Step("copy", (src, words[-1]), recipe.workdir, number))
        elif op == "RUN":
            apt, pip = packages(rest)
            recipe.apt += apt
            recipe.pip += pip
            if not is_provisioning(rest):
                recipe.steps.append(Step("run", (rest,), recipe.workdir, number))
    return recipe


def inside(path: Path, root: Path) -> bool:
    """Whether `path`, every symlink in it resolved, lies in `root` (itself resolved)."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip("/") + "/")


def check_sources(recipe: Recipe, context: Path, source: str) -> None:
    """Refuse a COPY/ADD source that is not a path inside the build context `context`."""
    for step in recipe.steps:
        if step.kind != "copy":
            continue
        src = step.args[0]
        where = f"{source} line {step.line}"
        expected = "a path inside the build context (the Dockerfile's folder)"
        if src.startswith("/"):
            raise InputError(where, f"COPY/ADD source {src!r} is an absolute path", expected)
        if os.path.normpath(src).split("/")[0] == "..":
            raise InputError(where, f"COPY/ADD source {src!r} leaves the build context", expected)
        if not inside(context / src, context):
            raise InputError(where, f"COPY/ADD source {src!r} resolves outside the build context through a symlink",
                             expected)
        if not os.path.lexists(context / src):
            raise InputError(where, f"COPY/ADD source {src!r} is not in the build context", expected)
