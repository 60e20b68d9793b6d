"""The subset of a task's Dockerfile that a workspace is built from.

`WORKDIR`, `COPY`/`ADD` (local sources), `ENV` and `RUN` are kept in order. A `RUN` whose every
`&&` part only provisions packages (apt/apt-get, pip, cleaning apt lists) becomes a requirement that
the host must already meet; any other `RUN` is a setup command replayed in the sandbox.
`FROM` names the image the docker backend prefers; other instructions are ignored.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from harnessx.errors import InputError

PROVISION = re.compile(r"^(apt-get|apt|pip3?|python3? -m pip|rm -rf /var/lib/apt/lists)\b")


@dataclass
class Step:
    kind: str  # "copy" or "run"
    args: tuple[str, ...]
    cwd: str


@dataclass
class Recipe:
    image: str | None = None
    workdir: str = "/app"
    steps: list[Step] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    apt: list[str] = field(default_factory=list)
    pip: list[str] = field(default_factory=list)


def logical_lines(text: str) -> list[str]:
    """Join continuation lines and drop comments and blanks."""
    lines, current = [], ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        lines.append((current + stripped).strip())
        current = ""
    if current.strip():
        lines.append(current.strip())
    return lines


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
    for line in logical_lines(text):
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
            words = [w for w in shlex.split(rest) if not w.startswith("--")]
            if len(words) < 2:
                raise InputError(source, f"{op} needs a source and a destination: {line!r}")
            for src in words[:-1]:
                recipe.steps.append(Step("copy", (src, words[-1]), recipe.workdir))
        elif op == "RUN":
            apt, pip = packages(rest)
            recipe.apt += apt
            recipe.pip += pip
            if not is_provisioning(rest):
                recipe.steps.append(Step("run", (rest,), recipe.workdir))
    return recipe
