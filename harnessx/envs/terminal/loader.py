"""Load Terminal-Bench 2 / Harbor task directories into `TaskSpec`s and `Task`s.

A task directory holds `instruction.md`, `task.toml`, `environment/Dockerfile` (its build context
beside it), `solution/solve.sh` and `tests/`. HarnessX reads an optional `[harnessx]` table from
`task.toml`, or the same keys from a `harnessx.toml` sidecar. TB2's `tests/test.sh` is never run (it
downloads its interpreter); only its plain file-preparation lines (`cp`, `mkdir`, ...) are kept.

A task folder is input like any other: a symlink in it that resolves outside it, or a Dockerfile
`COPY`/`ADD` whose source is not inside the build context (`dockerfile.check_sources`), makes the
task invalid, so nothing of the host outside the folder is ever read, copied or shown.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from pydantic import ValidationError

from harnessx.envs.fairness import unfair
from harnessx.envs.terminal import dockerfile
from harnessx.envs.terminal.spec import HarnessxTable, TaskSpec, TaskToml
from harnessx.errors import InputError
from harnessx.tasks import Act, Reference, Task, ToolCall
from harnessx.validation import validate

REQUIRED = ("instruction.md", "task.toml")
PREP_LINE = re.compile(r"^(cp|mkdir|chmod|ln|mv)\s")
SIDECAR = "harnessx.toml"


def read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot parse: {exc}") from None


def verifier_prep(test_sh: Path) -> list[str]:
    """The file-preparation lines of a TB2 `tests/test.sh` (e.g. `cp /tests/x /app/x`)."""
    if not test_sh.is_file():
        return []
    return [line.strip() for line in test_sh.read_text(encoding="utf-8").splitlines() if PREP_LINE.match(line.strip())]


def verifier_packages(test_sh: Path) -> list[str]:
    """Python packages a TB2 `tests/test.sh` adds to its verifier (`uvx -w pkg`), pytest's own aside."""
    if not test_sh.is_file():
        return []
    words = test_sh.read_text(encoding="utf-8").split()
    wanted = [b for a, b in zip(words, words[1:]) if a in ("-w", "--with")]
    return [w for w in wanted if not w.startswith("pytest")]


def check_links(path: Path, name: str) -> None:
    """Refuse a symlink in the task folder that resolves outside it, wherever it would be followed:
    the files the loader reads and the tests (copied with links followed). The build context is
    Docker's to judge: its links are copied as links, and a COPY source through one is checked by
    `dockerfile.check_sources`."""
    context = path / "environment"
    for dirpath, dirnames, filenames in os.walk(path):
        for entry in sorted(dirnames + filenames):
            full = Path(dirpath) / entry
            if context in full.parents and full != context / "Dockerfile":
                continue
            if full.is_symlink() and not dockerfile.inside(full, path):
                raise InputError(f"task {name}: {full.relative_to(path)}",
                                 f"is a symbolic link to {os.readlink(full)!r}, outside the task folder",
                                 "files and links inside the task folder")


def load_spec(path: str | Path) -> TaskSpec:
    """Read one task directory; an InputError names the task and the problem."""
    path = Path(path)
    name = path.name
    missing = [f for f in REQUIRED if not (path / f).is_file()]
    if missing:
        raise InputError(f"task {name}", f"missing required file(s): {', '.join(missing)}")
    check_links(path, name)
    data = read_toml(path / "task.toml")
    if "harnessx" not in data and (path / SIDECAR).is_file():
        sidecar = read_toml(path / SIDECAR)
        data["harnessx"] = sidecar.get("harnessx", sidecar)
    config = validate(TaskToml, data, f"task {name}: task.toml")
    hx = config.harnessx or HarnessxTable()
    docker = path / "environment" / "Dockerfile"
    recipe = dockerfile.parse(docker.read_text(encoding="utf-8"), f"task {name}: Dockerfile") if docker.is_file() \
        else dockerfile.Recipe()
    dockerfile.check_sources(recipe, path / "environment", f"task {name}: environment/Dockerfile")
    if hx.setup is not None:
        recipe.steps = [s for s in recipe.steps if s.kind == "copy"]
        recipe.steps += [dockerfile.Step("run", (cmd,), recipe.workdir) for cmd in hx.setup]
    solve = path / "solution" / "solve.sh"
    solution = solve.read_text(encoding="utf-8") if solve.is_file() else None
    if solution is not None and not any(line.strip() and not line.strip().startswith("#")
                                        for line in solution.splitlines()):
        raise InputError(f"task {name}: solution/solve.sh", "has no command (empty, or only comments)",
                         "the oracle's shell commands, or no solve.sh")
    oracle_apt, oracle_pip = dockerfile.packages(solution or "")
    tests = path / "tests"
    if hx.feasible and not all((tests / f).is_file() for f in hx.test_files):
        raise InputError(f"task {name}", f"missing tests: {', '.join('tests/' + f for f in hx.test_files)}")
    prep = hx.verifier_pre if hx.verifier_pre is not None else verifier_prep(tests / "test.sh")
    return TaskSpec(id=name, path=path, instruction=(path / "instruction.md").read_text(encoding="utf-8"),
                    config=config, hx=hx, recipe=recipe, solution=solution, test_dir=tests, verifier_pre=prep,
                    oracle_apt=oracle_apt, oracle_pip=oracle_pip, verifier_pip=verifier_packages(tests / "test.sh"))


def write_acts(forbidden: list[str], workdir: str) -> list[Act]:
    """A `write_file` call on a forbidden path, whether or not it succeeds (a relative path is
    relative to the work directory, as the tool reads it), and a `bash` command that may write one,
    however spelled, unless it is provably read-only (harnessx/scoring/shell.py; docs/scoring.md)."""
    if not forbidden:
        return []
    root = workdir.rstrip("/") + "/"
    relative = [p[len(root):] for p in forbidden if p.startswith(root) and len(p) > len(root)]
    absolute = [p if p.startswith("/") else root + p for p in forbidden]
    return [Act(tool="write_file", paths=[*forbidden, *relative], why="a write of a forbidden path"),
            Act(tool="bash", paths=absolute, shell=True, why="a shell command that may write a forbidden path "
                "and is not provably read-only, succeeded or not")]


def to_task(spec: TaskSpec) -> Task:
    hx = spec.hx
    oracle = {"command": spec.solution, "timeout": spec.config.agent.timeout_sec}
    actions = [ToolCall(name="bash", arguments=oracle)] if spec.solution else []
    meta = {"task_dir": str(spec.path), "category": spec.config.metadata.get("category"),
            "difficulty": spec.config.metadata.get("difficulty"), "agent_timeout_sec": spec.config.agent.timeout_sec}
    try:
        return Task(id=spec.id, env="terminal", split=hx.split, feasible=hx.feasible, family=hx.family,
                    source_id=hx.source_id or spec.id, instruction=spec.instruction, blocker=hx.blocker,
                    evidence=hx.evidence, forbidden=hx.forbidden, reference=Reference(actions=actions), metadata=meta,
                    acts=[] if hx.feasible else write_acts(hx.forbidden, spec.workdir))
    except ValidationError as exc:
        raise InputError(f"task {spec.id}: task.toml [harnessx]", exc.errors()[0]["msg"]) from None


def broken_task(path: Path, problem: str) -> Task:
    """A placeholder for a task directory that cannot be loaded: its episodes are environment failures,
    excluded as `invalid_task`; its split is unknown (the suite lists it under every split)."""
    return Task(id=path.name, env="terminal", split="search", feasible=True, source_id=path.name, instruction="",
                metadata={"task_dir": str(path), "load_error": problem})


def load_dir(tasks_dir: str | Path) -> tuple[list[Task], list[str]]:
    """Every task directory below `tasks_dir` (one level), plus one message per broken task."""
    root = Path(tasks_dir)
    if not root.is_dir():
        raise InputError(str(root), "tasks directory not found")
    tasks, errors = [], []
    for path in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not any((path / f).exists() for f in REQUIRED):
            continue
        try:
            tasks.append(to_task(load_spec(path)))
        except InputError as exc:
            errors.append(str(exc))
            tasks.append(broken_task(path, str(exc)))
    problems = unfair([t for t in tasks if not t.metadata.get("load_error")])  # across tasks: splits, evidence
    errors += list(problems.values())
    return [broken_task(Path(t.metadata["task_dir"]), problems[t.id]) if t.id in problems else t for t in tasks], errors
