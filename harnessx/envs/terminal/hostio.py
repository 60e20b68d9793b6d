"""Host-side file access inside an episode's workspace, where the agent may have made any path.

Every directory on the way is opened relative to its parent with O_NOFOLLOW (openat-style: a
component the agent swapped for a symlink is refused, never followed out of the workspace); the
last component is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO planted where a file was cannot
block the host) and must be a regular file once open (`fstat`): FIFOs, sockets, devices and links
are refused. Reads are bounded by the size seen at open. New files are created exclusively (O_EXCL),
so an existing file, or a link planted under the name, is never written through.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
MAX_DEPTH = 64  # directory levels a snapshot enters
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class Refused(OSError):
    """A path the host will not follow or open (a link, a FIFO, a device, a socket)."""


def _parts(rel: str) -> list[str]:
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise Refused(f"not a plain relative path: {rel!r}")
    return parts


@contextmanager
def parent_dir(root: Path, rel: str) -> Iterator[tuple[int, str]]:
    """(fd of the directory holding `rel` under `root`, its last name); no link is followed."""
    parts = _parts(rel)
    fd = os.open(root, DIR_FLAGS)
    try:
        for name in parts[:-1]:
            try:
                child = os.open(name, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise Refused(f"{rel}: {name} is not a plain directory ({exc.strerror})") from None
            os.close(fd)
            fd = child
        yield fd, parts[-1]
    finally:
        os.close(fd)


def open_regular(name: str, dir_fd: int) -> tuple[int, os.stat_result]:
    """An fd on the regular file `name` in `dir_fd` and its fstat; Refused for anything else."""
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise Refused(f"{name}: cannot open without following ({exc.strerror})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise Refused(f"{name}: not a regular file")
    return fd, st


def read_bounded(fd: int, size: int) -> Iterator[bytes]:
    """At most `size` bytes from `fd`, in chunks (a file growing under us is cut at its old size)."""
    left = size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


def read_file(root: Path, rel: str, limit: int) -> bytes:
    """The first `limit` bytes of the regular file `rel` under `root` (Refused otherwise)."""
    with parent_dir(root, rel) as (dir_fd, name):
        fd, st = open_regular(name, dir_fd)
        try:
            return b"".join(read_bounded(fd, min(limit, st.st_size)))
        finally:
            os.close(fd)


def write_new(root: Path, rel: str, data: bytes, mode: int = 0o644) -> None:
    """Create `rel` under `root` (which must not exist) and write `data`; nothing is followed."""
    with parent_dir(root, rel) as (dir_fd, name):
        fd = os.open(name, CREATE_FLAGS, mode, dir_fd=dir_fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)


def entry_state(name: str, dir_fd: int, hash_limit: int) -> tuple:
    """(kind, size, digest or link target) of one directory entry, never following or blocking."""
    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        return ("link", 0, os.readlink(name, dir_fd=dir_fd))
    if not stat.S_ISREG(st.st_mode):
        return ("special", 0, stat.S_IFMT(st.st_mode))
    try:
        fd, st = open_regular(name, dir_fd)
    except Refused:  # swapped since the stat: whatever it is now, it is no regular file
        return ("special", 0, "changed")
    try:
        if st.st_size > hash_limit:
            return ("file", st.st_size, f"mtime:{st.st_mtime_ns}")
        digest = hashlib.sha256()
        for chunk in read_bounded(fd, st.st_size):
            digest.update(chunk)
        return ("file", st.st_size, digest.hexdigest())
    finally:
        os.close(fd)


def walk_states(root: Path, hash_limit: int) -> Iterator[tuple[str, tuple]]:
    """(path relative to `root`, entry_state) for every file, link and special file below `root`,
    walked by directory fds (`os.fwalk`, links never followed). A directory MAX_DEPTH levels down is
    recorded as ("deep", 0, "") and not entered: an agent's tree of any depth costs the host no more
    than that many open directories."""
    for dirpath, dirnames, filenames, dir_fd in os.fwalk(root, follow_symlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir != "." and rel_dir.count("/") + 1 >= MAX_DEPTH:
            yield from ((f"{rel_dir}/{d}", ("deep", 0, "")) for d in dirnames if not _is_link(d, dir_fd))
            dirnames[:] = [d for d in dirnames if _is_link(d, dir_fd)]
        names = filenames + [d for d in dirnames if _is_link(d, dir_fd)]
        for name in names:
            try:
                state = entry_state(name, dir_fd, hash_limit)
            except FileNotFoundError:  # removed while we walked
                continue
            yield (name if rel_dir == "." else f"{rel_dir}/{name}"), state


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
