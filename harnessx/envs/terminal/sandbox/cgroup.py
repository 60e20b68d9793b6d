"""One control group per sandbox: every process a sandbox starts joins it, so the episode as a whole
is bounded in processes (`pids.max`) and memory, and can be killed to the last process, daemons
included, whatever session or process group they moved to.

cgroup v2 (a delegated subtree whose parent enables `pids` and `memory`) or v1 (the `pids` and
`memory` hierarchies). Creating a group needs write access to the hierarchy (root, or a delegated
subtree); without it `EpisodeCgroup.create` returns None and the sandbox runs with its per-process
rlimits only (see docs/trust.md).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
KILL_WAIT = 10.0  # seconds to wait for killed processes to leave the group


def _own_path(controller: str) -> str:
    """This process's cgroup path in a v1 hierarchy (`controller`) or v2 (``"")."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return "/"
    for line in lines:
        _, names, path = line.split(":", 2)
        if (controller == "" and names == "") or controller in names.split(","):
            return path
    return "/"


def _parent(mount: Path, controller: str) -> Path:
    own = mount / _own_path(controller).lstrip("/")
    return own if own.is_dir() else mount


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _counter(text: str, key: str) -> int:
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _pids_group(group: Path, pids: int) -> Path | None:
    """A new group directory with its pids limit set, or None (and nothing left) where that fails."""
    try:
        group.mkdir()
    except OSError:
        return None
    if not _write(group / "pids.max", str(pids)):
        group.rmdir()
        return None
    return group


class EpisodeCgroup:
    """The group directories (one for v2; pids and memory for v1) and the limits set on them."""

    def __init__(self, pids_dir: Path, memory_dir: Path | None, v2: bool, pids: int, memory_mb: int):
        self.pids_dir, self.memory_dir, self.v2 = pids_dir, memory_dir, v2
        self.pids, self.memory_mb = pids, memory_mb

    @classmethod
    def create(cls, pids: int, memory_mb: int) -> EpisodeCgroup | None:
        name = f"harnessx-{uuid.uuid4().hex[:12]}"
        if (ROOT / "cgroup.controllers").is_file():
            group = _pids_group(_parent(ROOT, "") / name, pids)
            if group is None:
                return None
            memory = group if _write(group / "memory.max", str(memory_mb * 1024 * 1024)) else None
            _write(group / "memory.swap.max", "0")
            return cls(group, memory, True, pids, memory_mb)
        if not (ROOT / "pids").is_dir():
            return None
        group = _pids_group(_parent(ROOT / "pids", "pids") / name, pids)
        if group is None:
            return None
        memory = _parent(ROOT / "memory", "memory") / name
        try:
            memory.mkdir()
            if not _write(memory / "memory.limit_in_bytes", str(memory_mb * 1024 * 1024)):
                memory.rmdir()
                memory = None
        except OSError:
            memory = None
        return cls(group, memory, False, pids, memory_mb)

    def dirs(self) -> list[Path]:
        return [self.pids_dir] + ([self.memory_dir] if self.memory_dir and self.memory_dir != self.pids_dir else [])

    def join(self) -> None:
        """Move the calling process into the group (a preexec function: runs in the child)."""
        (self.pids_dir / "cgroup.procs").write_text(str(os.getpid()))
        if self.memory_dir is not None and self.memory_dir != self.pids_dir:
            _write(self.memory_dir / "cgroup.procs", str(os.getpid()))

    def members(self) -> list[int]:
        return [int(p) for p in _read(self.pids_dir / "cgroup.procs").split()]

    def exceeded(self) -> list[str]:
        """The limits a process of the group ran into, named with their values."""
        hit = []
        if _counter(_read(self.pids_dir / "pids.events"), "max"):
            hit.append(f"pids limit ({self.pids} processes)")
        if self.memory_dir is not None:
            events = _read(self.memory_dir / ("memory.events" if self.v2 else "memory.oom_control"))
            if _counter(events, "oom_kill"):
                hit.append(f"memory limit ({self.memory_mb} MB)")
        return hit

    def kill_all(self) -> tuple[int, list[int]]:
        """SIGKILL every member until the group is empty: (processes killed, survivors after KILL_WAIT)."""
        killed: set[int] = set()
        deadline = time.monotonic() + KILL_WAIT
        while True:
            members = self.members()
            if not members or time.monotonic() > deadline:
                return len(killed), members
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)

    def remove(self) -> list[int]:
        """Kill what is left and delete the group; returns survivors (none unless the kernel refuses)."""
        _, survivors = self.kill_all()
        for d in self.dirs():
            try:
                d.rmdir()
            except OSError:
                pass
        return survivors
