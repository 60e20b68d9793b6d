"""The built-in suite as task directories, generated once per content version into a cache.

The cache key hashes the suite data (`environments/terminal/`) and the generator code, so any change
regenerates; generation is deterministic, so the same key always holds the same tasks. Set
`HARNESSX_CACHE` to choose where the cache lives (default: the system temp directory).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from harnessx.envs.terminal.builtin.family import SUITE_DATA
from harnessx.envs.terminal.builtin.plan import build_plan
from harnessx.envs.terminal.builtin.writer import write_task
from harnessx.envs.terminal.loader import load_spec, to_task
from harnessx.tasks import Task

DONE = ".complete"


def content_key() -> str:
    digest = hashlib.sha256()
    sources = sorted(SUITE_DATA.rglob("*")) + sorted(Path(__file__).parent.glob("*.py"))
    for path in sources:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def suite_root() -> Path:
    """The directory holding every built-in task directory, generated if missing."""
    base = Path(os.environ.get("HARNESSX_CACHE") or tempfile.gettempdir())
    root = base / f"harnessx-terminal-builtin-{content_key()}"
    if (root / DONE).is_file():
        return root
    staging = Path(tempfile.mkdtemp(prefix=root.name + "-", dir=base))
    for entry in build_plan():
        source = entry.source_id
        write_task(staging, source, entry.instance, entry.split)
        for variant in entry.variants:
            write_task(staging, f"{source}-{variant.kind}", entry.instance, entry.split, variant)
    (staging / DONE).write_text("ok\n", encoding="utf-8")
    try:
        staging.rename(root)
    except OSError:  # another process finished first
        shutil.rmtree(staging, ignore_errors=True)
    return root


def builtin_task_dir(task_id: str) -> Path:
    return suite_root() / task_id


@functools.lru_cache(maxsize=1)
def _tasks() -> tuple[Task, ...]:
    root = suite_root()
    return tuple(to_task(load_spec(p)) for p in sorted(root.iterdir()) if p.is_dir())


def builtin_tasks() -> list[Task]:
    """All built-in tasks; their metadata names the built-in suite, not the cache path."""
    return [t.model_copy(update={"metadata": {**{k: v for k, v in t.metadata.items() if k != "task_dir"},
                                              "builtin": True}}) for t in _tasks()]
