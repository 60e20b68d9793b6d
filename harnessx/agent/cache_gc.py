"""Which entries of a runs folder's shared rollout cache nothing uses any more, and removing them.

A rollout is on disk once: `runs/cache/<kk>/<key>.json(l)` and a hard link (or, across filesystems, a
copy) of it in each folder that used it: a search's `rollouts/`, a compare's, eval's or probe's own
`rollouts/`. Every command that reads the cache (search, compare, eval, probe, plan) keeps the
rollouts it used in its folder, so an entry is still in use while any file under the runs folder,
outside the cache, carries its key's name. The rest (a deleted run's, a `plan --pilot`'s that no run
used, a crashed write's `.tmp`) is garbage: removing it frees its bytes where the cache held the last
link, and a later command that needs one of those rollouts pays for it again.

Nothing here follows a symbolic link: the walk does not enter linked folders (a run folder reached
through a link does not keep cache entries), and files are removed through their folder's descriptor,
opened without following links, so a link swapped in cannot point the removal outside the runs folder.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from harnessx.agent.shared_cache import CACHE_DIR

KEY_FILE = re.compile(r"^([0-9a-f]{8,64})\.jsonl?(\.tmp)?$")  # a rollout record, its trajectory, a torn write


@dataclass
class Usage:
    """Disk use of a folder tree: files and allocated bytes, each file (inode) counted once."""

    files: int = 0
    bytes: int = 0

    def line(self) -> str:
        return f"{self.bytes / 1e6:.1f} MB in {self.files:,} files"


def disk_use(root: Path) -> Usage:
    """Allocated bytes under `root`, without following links; a hard-linked file counts once."""
    seen: set[tuple[int, int]] = set()
    use = Usage()
    for folder, _, files in os.walk(root):
        for name in files:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:  # removed while walking
                continue
            if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                use.files += 1
                use.bytes += st.st_blocks * 512
    return use


@dataclass
class Garbage:
    """Cache files nothing uses: (sub-folder, file name, bytes removing it frees) per file."""

    files: list[tuple[str, str, int]] = field(default_factory=list)
    kept: int = 0  # cache entries (keys) still in use
    skipped: list[str] = field(default_factory=list)  # links found in the cache, left alone

    @property
    def entries(self) -> int:
        return len({KEY_FILE.match(name).group(1) for _, name, _ in self.files})

    @property
    def bytes(self) -> int:
        return sum(size for *_, size in self.files)


def cache_of(root: Path) -> Path | None:
    """The runs folder's cache, None when it has none; a linked cache is refused (ValueError)."""
    cache = root / CACHE_DIR
    try:
        st = os.lstat(cache)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise ValueError(f"{cache} is a symbolic link (to {os.readlink(cache)}); gc removes files only inside {root}")
    if not stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{cache} is not a folder")
    return cache


def in_use(root: Path) -> set[str]:
    """Rollout keys that a file under `root`, outside its cache, is named after (not following links)."""
    keys = set()
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root and CACHE_DIR in dirs:
            dirs.remove(CACHE_DIR)
        keys.update(m.group(1) for name in files if (m := KEY_FILE.match(name)) and not m.group(2))
    return keys


def find_garbage(root: Path) -> Garbage:
    garbage = Garbage()
    cache = cache_of(root)
    if cache is None:
        return garbage
    used, kept = in_use(root), set()
    for sub in sorted(os.scandir(cache), key=lambda e: e.name):
        if not sub.is_dir(follow_symlinks=False):
            if sub.is_symlink():
                garbage.skipped.append(f"{CACHE_DIR}/{sub.name}")
            continue
        for entry in sorted(os.scandir(sub.path), key=lambda e: e.name):
            match = KEY_FILE.match(entry.name)
            if not match or not entry.is_file(follow_symlinks=False):
                if entry.is_symlink():
                    garbage.skipped.append(f"{CACHE_DIR}/{sub.name}/{entry.name}")
                continue
            if match.group(1) in used and not match.group(2):
                kept.add(match.group(1))
                continue
            st = entry.stat(follow_symlinks=False)
            garbage.files.append((sub.name, entry.name, st.st_blocks * 512 if st.st_nlink == 1 else 0))
    garbage.kept = len(kept)
    return garbage


def remove(root: Path, garbage: Garbage) -> None:
    """Remove the garbage's files, each through its folder's descriptor opened without following a
    link, then the cache's sub-folders left empty."""
    cache_fd = os.open(root / CACHE_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        subs = sorted({sub for sub, _, _ in garbage.files})
        for sub in subs:
            fd = os.open(sub, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=cache_fd)
            try:
                for name in (n for s, n, _ in garbage.files if s == sub):
                    os.unlink(name, dir_fd=fd)
            finally:
                os.close(fd)
            try:
                os.rmdir(sub, dir_fd=cache_fd)
            except OSError:  # still holds entries in use
                pass
    finally:
        os.close(cache_fd)
