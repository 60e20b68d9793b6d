"""Where the rollout cache that every command shares lives: `<runs dir>/cache`.

`search` (its `--runs-dir`), `eval` and `compare` (the parent of the run or output directory, so
`runs/` by default) read and write one cache there, keyed by the full rollout key (harness hash,
task id and content digest, seed, model with its server and sampling defaults, challenge). Each run
directory keeps its own copy of the rollouts it used, so it stays readable on its own.
"""

from __future__ import annotations

from pathlib import Path

CACHE_DIR = "cache"


def shared_cache(runs_dir: str | Path) -> Path:
    return Path(runs_dir) / CACHE_DIR
