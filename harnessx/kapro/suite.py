"""`--env kapro`: the built-in KAPRO suite, or KAware-format files (`kaware_dir`), optionally with
up to 10 distractor tools per task (`distractors`). `problems` lists, one line per file, the
KAware records that could not be read (the rest are loaded)."""

from __future__ import annotations

from pathlib import Path

from harnessx.kapro.builtin import DATA_DIR, builtin_items, catalogue_blocks
from harnessx.kapro.env import KaproEnv, with_distractors
from harnessx.kapro.items import KaproItem
from harnessx.kapro.kaware import load_kaware
from harnessx.tasks import Task


def distractor_pool(items: list[KaproItem]) -> dict[str, tuple[str, dict]]:
    """Every tool any item offers (its server and block), plus the built-in catalogue."""
    pool = dict(catalogue_blocks())
    for item in items:
        for block in item.tools:
            pool.setdefault(block["function"]["name"], (item.server, block))
    return pool


class KaproSuite:
    name = "kapro"

    def __init__(self, kaware_dir: str | None = None, distractors: int = 0, data_dir: str | None = None):
        load = load_kaware(kaware_dir) if kaware_dir else None
        base = load.items if load else builtin_items(Path(data_dir) if data_dir else DATA_DIR)
        self.problems = load.problems if load else []  # one line per file with records that could not be read
        self.items = with_distractors(base, int(distractors), distractor_pool(base))
        self.source = f"KAware files in {Path(kaware_dir).name}" if kaware_dir else "built-in suite"
        self._tasks = [item.to_task() for item in self.items]

    def tasks(self, split: str | None = None) -> list[Task]:
        return [t for t in self._tasks if split is None or t.split == split]

    def make_env(self) -> KaproEnv:
        return KaproEnv()
