"""`BfclSuite`: BFCL v4 multi-turn tasks and environments (`--env bfcl`).

`BfclSuite()` reads the installed `bfcl-eval` package's data; `BfclSuite(bfcl_dir=PATH)` another
copy of BFCL's data folder. Without the package it fails with the install command.
"""

from __future__ import annotations

from pathlib import Path

from harnessx.envs.bfcl.build import SHAPE_FILE, build_tasks, load_shape
from harnessx.envs.bfcl.data import data_dir, require_bfcl
from harnessx.envs.bfcl.env import BfclEnv
from harnessx.tasks import Task


class BfclSuite:
    name = "bfcl"

    def __init__(self, bfcl_dir: str | Path | None = None, shape_file: str | Path | None = None):
        require_bfcl()
        self.bfcl_dir = str(Path(bfcl_dir).resolve()) if bfcl_dir else None
        data_dir(self.bfcl_dir)
        self._tasks = build_tasks(load_shape(Path(shape_file) if shape_file else SHAPE_FILE), self.bfcl_dir)

    def tasks(self, split: str | None = None) -> list[Task]:
        return [t for t in self._tasks if split is None or t.split == split]

    def make_env(self) -> BfclEnv:
        return BfclEnv(self.bfcl_dir)
