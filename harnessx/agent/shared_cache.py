"""Where the rollout cache that every command shares lives: `<runs dir>/cache`, and who is using it.

`search` (its `--runs-dir`), `eval`, `compare` and the probes (the parent of the run or output
directory, so `runs/` by default) and `plan` (its `--runs-dir`) read and write one cache there, keyed
by the full rollout key (harness hash, task id and content digest, seed, model with its server and
sampling defaults, challenge). Each run or compare directory keeps its own hard link (or copy) of
the rollouts it used, so it stays readable on its own.

While a command reads or writes the cache it holds a shared lock on the runs directory itself
(`flock` on the directory: no lock file is left behind); `harnessx gc` takes the lock exclusively,
so it never removes an entry a running command is about to link, and a command started during a gc
waits for it.
"""

from __future__ import annotations

import fcntl
import os
import weakref
from pathlib import Path

CACHE_DIR = "cache"


def shared_cache(runs_dir: str | Path) -> Path:
    return Path(runs_dir) / CACHE_DIR


class RunsRootBusy(Exception):
    """The runs directory is in use by another command (`pids`: who holds it, when the system says)."""

    def __init__(self, pids: list[int]):
        self.pids = pids
        super().__init__(", ".join(map(str, pids)))


class RootHold:
    """A lock on the runs directory `root` for this object's life (or until `release()`): shared for a
    command using the cache, exclusive (never waiting: `RunsRootBusy` at once) for `gc`. A root that
    does not exist yet holds nothing (there is nothing in it to collect)."""

    def __init__(self, root: str | Path, exclusive: bool = False):
        self.root = Path(root)
        self._fd: int | None = None
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB if exclusive else fcntl.LOCK_SH)
        except BlockingIOError:
            os.close(fd)
            raise RunsRootBusy(holders(self.root)) from None
        self._fd = fd
        self._finalizer = weakref.finalize(self, os.close, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            self._finalizer()  # closes the descriptor, which drops the lock
            self._fd = None

    def __enter__(self) -> RootHold:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def holders(root: Path) -> list[int]:
    """The processes holding a lock on `root` (from /proc/locks; empty where the system does not say)."""
    try:
        st = os.stat(root)
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return []
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    pids = set()
    for line in lines:
        fields = line.split()
        if "->" not in fields and len(fields) >= 6 and fields[5] == inode and fields[4].isdigit():
            pids.add(int(fields[4]))
    return sorted(pids - {os.getpid()})
