"""A built FeasiGen suite on disk, and the `feasigen` environment suite that loads it.

Layout of a suite directory (written by `harnessx feasigen build`):
- `tasks.jsonl` — one Task per line: the originals (feasible) and their masked infeasible twins;
  pairs share `source_id`, and every task carries `metadata["benchmark"] = "feasigen"`.
- `suite.json` — the source environment and its suite options, the build settings, each
  original's construction record (traces, critical tools, flags, check) and what was rejected.

`--env feasigen --tasks-dir DIR` opens it in every command; episodes run in the source
environment (retail, terminal, ...), which honours each task's `masked_tools`.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from harnessx.errors import InputError
from harnessx.io_read import read_json, read_text
from harnessx.io_write import write_atomic
from harnessx.tasks import Task

TASKS_FILE = "tasks.jsonl"
MANIFEST = "suite.json"


def write_suite(out: Path, tasks: list[Task], manifest: dict) -> Path:
    write_atomic(out / TASKS_FILE, "".join(t.model_dump_json() + "\n" for t in tasks))
    write_atomic(out / MANIFEST, json.dumps(manifest, indent=2, default=str))
    return out


def read_manifest(root: Path) -> dict:
    path = root / MANIFEST
    if not path.is_file():
        raise InputError(str(path), "file not found", "a FeasiGen suite directory (harnessx feasigen build --out DIR)")
    data = read_json(path, "a FeasiGen suite manifest (suite.json)")
    if not isinstance(data, dict) or not isinstance(data.get("source_env"), str):
        raise InputError(str(path), "field 'source_env' missing", "the source environment's name, e.g. 'retail'")
    return data


def read_tasks(root: Path) -> list[Task]:
    path = root / TASKS_FILE
    if not path.is_file():
        raise InputError(str(path), "file not found", "the suite's tasks.jsonl")
    tasks = []
    for number, line in enumerate(read_text(path, "the suite's tasks.jsonl").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            tasks.append(Task.model_validate(json.loads(line)))
        except (json.JSONDecodeError, RecursionError):
            raise InputError(f"{path}:{number}", "not valid JSON", "one task per line") from None
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "(top level)"
            raise InputError(f"{path}:{number}", f"field '{field}': {err['msg']}") from None
    return tasks


class FeasiGenSuite:
    """The tasks of a built suite; environments come from its source suite."""

    name = "feasigen"

    def __init__(self, tasks_dir: str | Path | None = None, sandbox: str | None = None):
        if not tasks_dir:
            raise InputError("--tasks-dir", "--env feasigen needs the built suite's directory",
                             "the --out of `harnessx feasigen build`")
        from harnessx.envs.registry import get_suite

        self.root = Path(tasks_dir)
        self.manifest = read_manifest(self.root)
        options = dict(self.manifest.get("source_options") or {})
        if sandbox:
            options["sandbox"] = sandbox
        self.source_env = self.manifest["source_env"]
        self.source = get_suite(self.source_env, **options)
        self._tasks = read_tasks(self.root)

    def tasks(self, split: str | None = None) -> list[Task]:
        return [t for t in self._tasks if split is None or t.split == split]

    @property
    def rollout_identity(self) -> str:
        """The source suite's (e.g. retail's customer mode and user model), so keys never mix them."""
        return getattr(self.source, "rollout_identity", "")

    def make_env(self):
        return self.source.make_env()
