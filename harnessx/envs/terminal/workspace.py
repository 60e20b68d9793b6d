"""An episode's workspace on the host: one directory per sandbox root (`/app`, `/tests`, `/logs`,
private `/tmp` and `/root`, plus any root the task copies into), Dockerfile-style copies into it,
and content snapshots whose differences are the episode's state changes."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

FIXED_ROOTS = ("/app", "/tests", "/logs", "/tmp", "/root")
UNWATCHED = ("/tests", "/logs", "/tmp", "/root")  # not part of the task's state
HASH_LIMIT = 16 * 1024 * 1024

Snapshot = dict[str, tuple]


class Workspace:
    def __init__(self, roots: list[str]):
        self.base = Path(tempfile.mkdtemp(prefix="harnessx-ws-"))
        self.mounts: dict[str, Path] = {}
        for root in sorted(set(FIXED_ROOTS) | set(roots)):
            host = self.base / root.strip("/")
            host.mkdir(parents=True, exist_ok=True)
            self.mounts[root] = host

    def host_path(self, path: str) -> Path:
        """The host path behind an absolute sandbox path inside one of the roots."""
        norm = os.path.normpath(path)
        for root, host in self.mounts.items():
            if norm == root or norm.startswith(root + "/"):
                return host / os.path.relpath(norm, root)
        raise ValueError(f"{path} is outside the workspace roots {sorted(self.mounts)}")

    def copy_in(self, source: Path, dest: str) -> None:
        """Docker COPY semantics: a directory's contents go into `dest`; a file goes into `dest/`
        when `dest` ends with '/' or is an existing directory, else becomes `dest`."""
        target = self.host_path(dest)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True, symlinks=True)
        else:
            if dest.endswith("/") or target.is_dir():
                target = target / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        make_writable(target)

    def snapshot(self) -> Snapshot:
        """Sandbox path -> (kind, size, digest or link target) for every file under watched roots."""
        state: Snapshot = {}
        for root, host in self.mounts.items():
            if root in UNWATCHED:
                continue
            for dirpath, dirnames, filenames in os.walk(host):
                for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                    full = os.path.join(dirpath, name)
                    state[root + "/" + os.path.relpath(full, host)] = file_state(full)
        return state

    def cleanup(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def make_writable(path: Path) -> None:
    """Give the owner write access (sources may be read-only; the sandbox has no DAC override)."""
    paths = [path] + (list(path.rglob("*")) if path.is_dir() else [])
    for p in paths:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)


def file_state(path: str) -> tuple:
    st = os.lstat(path)
    if os.path.islink(path):
        return ("link", 0, os.readlink(path))
    if st.st_size > HASH_LIMIT:
        return ("file", st.st_size, f"mtime:{st.st_mtime_ns}")
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return ("file", st.st_size, digest.hexdigest())


def diff(before: Snapshot, after: Snapshot) -> list[tuple[str, str]]:
    """(sandbox path, created|modified|deleted), sorted by path."""
    changes = []
    for path in sorted(set(before) | set(after)):
        if path not in before:
            changes.append((path, "created"))
        elif path not in after:
            changes.append((path, "deleted"))
        elif before[path] != after[path]:
            changes.append((path, "modified"))
    return changes


def is_forbidden(path: str, patterns: list[str]) -> bool:
    """Whether a sandbox path matches a forbidden pattern: a glob (`*` crosses '/'), or a directory
    that contains it."""
    return any(fnmatch.fnmatchcase(path, p) or path.startswith(p.rstrip("/") + "/") for p in patterns)
