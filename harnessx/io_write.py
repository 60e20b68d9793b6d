"""Atomic output files: write a temporary file next to the target, fsync it, rename it over the target.

A reader sees the old file or the new one, never half of one; a write that fails (a full disk, a
read-only folder, a target that is a directory) leaves no temporary file and no partial target.
"""

from __future__ import annotations

import errno
import io
import os
import tempfile
from pathlib import Path

from harnessx import failpoints
from harnessx.errors import InputError

# What the user can do about an OSError, by errno.
OS_EXPECTED = {
    errno.ENAMETOOLONG: "a shorter name (at most 255 bytes per path component)",
    errno.EROFS: "a writable location (this filesystem is read-only)",
    errno.EACCES: "a location this user may read and write",
    errno.EPERM: "a location this user may read and write",
    errno.ENOSPC: "free space on that filesystem",
    errno.EDQUOT: "free quota on that filesystem",
    errno.EISDIR: "a file path, not a directory",
    errno.ENOTDIR: "a path whose parent folders are directories, not files",
    errno.ENOENT: "an existing path",
    errno.EEXIST: "a path that does not exist yet",
    errno.ENOTEMPTY: "an empty directory",
    errno.EXDEV: "a path on the same filesystem",
}


def os_expected(exc: OSError) -> str | None:
    return OS_EXPECTED.get(exc.errno if exc.errno is not None else -1)


def check_target(path: str | Path, what: str = "an output file") -> Path:
    """`path` can be written as a file: not a directory, and no parent of it a file."""
    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), "is a directory", f"{what} path, not a directory")
    check_out_dir(path.parent, f"{what} under a directory")
    return path


def check_out_dir(path: str | Path, what: str = "an output directory") -> Path:
    """`path` can be an output directory: not a file, and no parent of it a file (checked before work starts)."""
    path = Path(path)
    for folder in (path, *path.parents):
        if folder.exists():
            if not folder.is_dir():
                raise InputError(str(path), f"{folder} is a file, not a directory", what)
            break
    return path


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write `data` to `path` atomically (creating its parent folders); a failure to write is one
    error naming `path`, and leaves neither a temporary file nor a partial `path`."""
    path = check_target(path)
    ensure_dir(path.parent)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp: str | None = None
    try:
        if path.exists() and not path.is_file():  # a device or pipe (/dev/stdout): written in place, never replaced
            with open(path, "wb") as fh:
                fh.write(raw)
            return path
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:200]}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            failpoints.hit(f"write:{path.name}", torn=lambda: (fh.write(raw[: len(raw) // 3]), fh.flush()))
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        hint = os_expected(exc) if exc.errno not in (errno.ENOENT, errno.EEXIST) else None
        raise InputError(str(path), f"cannot write it ({exc.strerror or exc})", hint or "a writable file path") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
    return path


def ensure_dir(path: str | Path, what: str = "an output directory") -> Path:
    """Create the directory `path` (and its parents); a file in the way is one error naming it."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(str(path), "is a file, not a directory", what)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a parent folder is a file
        raise InputError(str(path), "a parent folder is a file", f"{what} under directories") from None
    except OSError as exc:
        raise InputError(str(exc.filename or path), f"cannot create it ({exc.strerror or exc})",
                         os_expected(exc) or what) from None
    return path


def save_figure(fig: object, path: str | Path, dpi: int = 110) -> Path:
    """A matplotlib figure as a PNG, written atomically."""
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=dpi, format="png")  # type: ignore[attr-defined]
    return write_atomic(path, buffer.getvalue())
