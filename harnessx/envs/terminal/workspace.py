"""An episode's workspace on the host: one directory per sandbox root (`/app`, `/logs`, private
`/tmp` and `/root`, plus any root the task copies into), Dockerfile-style copies into it, and
content snapshots whose differences are the episode's state changes.

The workspace is bounded by the task's storage, on the host's disk and never in memory: as root it
is an ext4 file system of that size in a sparse image file (`mount -o loop`; in the temporary
directory, or in `/var/tmp` when the temporary directory is itself a tmpfs), so a write beyond it
fails inside the sandbox with "no space left on device" and the pages it takes are the disk's, not
RAM; its mount table shows only the loop device and `/app`-style roots, never a host path. Without
root (or without a loop device) it is a plain directory whose size is measured after every command.
Either way `exceeded` names the limit once it is reached. (`/tests` is no root of the agent's: the
verifier gets its tests in a directory of its own, see isolation.py.)"""

from __future__ import annotations

import fnmatch
import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from harnessx.envs.terminal import hostio

FIXED_ROOTS = ("/app", "/logs", "/tmp", "/root")
FULL_MARGIN = 1024 * 1024  # bytes: a workspace file system with less than this free is full
UNWATCHED = ("/tests", "/logs", "/tmp", "/root")  # not part of the task's state
HASH_LIMIT = 16 * 1024 * 1024

Snapshot = dict[str, tuple]


def fs_type(path: str) -> str:
    """The type of the file system holding `path` (`stat -f`), "" when unknown."""
    done = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


@functools.lru_cache(maxsize=1)
def disk_dir() -> str | None:
    """Where workspaces are made: the temporary directory, unless it is memory (a tmpfs `/tmp`, as
    on many distributions) and `/var/tmp` is not; None for tempfile's own choice."""
    tmp = tempfile.gettempdir()
    if fs_type(tmp) == "tmpfs" and os.path.isdir("/var/tmp") and fs_type("/var/tmp") not in ("tmpfs", ""):
        return "/var/tmp"
    return None


def mount_disk(home: Path, size_mb: int) -> Path | None:
    """An ext4 file system of `size_mb` in a sparse image under `home`, mounted (root only); its mount
    point, or None when it cannot be made here (no root, no loop device, no mkfs)."""
    if os.geteuid() != 0 or not all(shutil.which(b) for b in ("mount", "mkfs.ext4")):
        return None
    image, point = home / "disk.img", home / "fs"
    point.mkdir()
    with open(image, "wb") as fh:
        fh.truncate(size_mb * 1024 * 1024)
    made = subprocess.run(["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", "-E",
                           "lazy_itable_init=1,root_owner=0:0", str(image)], capture_output=True, check=False)
    if made.returncode == 0:
        done = subprocess.run(["mount", "-o", "loop,nosuid,nodev,noinit_itable", str(image), str(point)],
                              capture_output=True, check=False)
        if done.returncode == 0:
            point.chmod(0o700)
            return point
    image.unlink()
    point.rmdir()
    return None


def disk_usage(path: Path) -> int:
    """Bytes allocated under `path` (links not followed; iterative, so any depth is fine)."""
    total, stack = 0, [str(path)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                total += entry.stat(follow_symlinks=False).st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
            except OSError:
                pass
    return total


class Workspace:
    def __init__(self, roots: list[str], storage_mb: int | None = None):
        self.home = Path(tempfile.mkdtemp(prefix="harnessx-ws-", dir=disk_dir() if storage_mb is not None else None))
        self.storage_mb = storage_mb
        disk = mount_disk(self.home, storage_mb) if storage_mb is not None else None
        self.mounted = disk is not None  # the limit is the file system's size; else it is measured
        self.base = disk or self.home
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

    def read(self, path: str, limit: int) -> bytes | None:
        """The first `limit` bytes of the regular file at sandbox `path`, read without following a
        link or blocking (hostio); None when it is missing or no regular file."""
        norm = os.path.normpath(path)
        for root, host in self.mounts.items():
            if norm.startswith(root + "/"):
                try:
                    return hostio.read_file(host, os.path.relpath(norm, root), limit)
                except OSError:
                    return None
        return None

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
        """Sandbox path -> (kind, size, digest or link target) for every file under watched roots,
        walked without following a link or blocking on a FIFO (agent processes may still run)."""
        state: Snapshot = {}
        for root, host in self.mounts.items():
            if root in UNWATCHED:
                continue
            for rel, entry in hostio.walk_states(host, HASH_LIMIT):
                state[f"{root}/{rel}"] = entry
        return state

    def exceeded(self) -> list[str]:
        """["disk limit (N MB)"] once the workspace is full, else []."""
        if self.storage_mb is None:
            return []
        if self.mounted:
            fs = os.statvfs(self.base)
            full = fs.f_bavail * fs.f_frsize < FULL_MARGIN
        else:
            full = disk_usage(self.base) >= self.storage_mb * 1024 * 1024
        return [f"disk limit ({self.storage_mb} MB)"] if full else []

    def cleanup(self) -> None:
        if self.mounted:  # the loop device is released with its last mount (autoclear)
            subprocess.run(["umount", "-l", str(self.base)], capture_output=True, check=False)
            self.mounted = False
        try:
            shutil.rmtree(self.home, ignore_errors=True)
        except RecursionError:  # a tree deeper than Python recurses: rm walks it without recursing
            subprocess.run(["rm", "-rf", "--one-file-system", "--", str(self.home)], capture_output=True, check=False)


def make_writable(path: Path) -> None:
    """Give the owner write access (sources may be read-only; the sandbox has no DAC override)."""
    paths = [path] + (list(path.rglob("*")) if path.is_dir() else [])
    for p in paths:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)


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
