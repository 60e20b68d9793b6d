"""What of the host a sandbox exposes, read-only: system directories, the prepared interpreter and
the harness tool directory (python links and offline package-manager shims).

Home directories, project trees and everything else stay invisible, so an agent cannot read a task's
tests or solution from where they are stored.
"""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from pathlib import Path

from harnessx.envs.terminal.sandbox.shims import write_toolbin

SYSTEM_DIRS = ("/usr", "/etc", "/opt", "/var/lib/dpkg")
TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
TOOLBIN = "/run/harnessx/bin"
PASSTHROUGH_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "LANG", "TZ")
PATH = f"{TOOLBIN}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def system_dirs() -> list[str]:
    return [d for d in SYSTEM_DIRS if os.path.isdir(d)]


def top_level_entries() -> list[tuple[str, str | None]]:
    """(path, symlink target or None for a real directory) for /bin, /lib, ... as on the host."""
    entries = []
    for name in TOP_LINKS:
        path = f"/{name}"
        if os.path.islink(path):
            entries.append((path, os.readlink(path)))
        elif os.path.isdir(path):
            entries.append((path, None))
    return entries


def interpreter_dirs() -> list[str]:
    """Prefixes of the prepared interpreter (a venv and its base) not already under a system dir."""
    dirs = []
    for prefix in {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}:
        if not any(prefix == d or prefix.startswith(d + "/") for d in system_dirs()):
            dirs.append(prefix)
    return sorted(dirs)


@functools.lru_cache(maxsize=1)
def toolbin() -> Path:
    """A per-process directory holding `python`/`python3` links and the offline shims."""
    path = Path(tempfile.mkdtemp(prefix="harnessx-toolbin-"))
    write_toolbin(path, sys.executable)
    return path


def base_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment every sandboxed command starts with (the host's is never inherited)."""
    env = {"PATH": PATH, "HOME": "/root", "USER": "root", "TERM": "dumb", "LC_ALL": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "DEBIAN_FRONTEND": "noninteractive"}
    env.update({k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ})
    env.update(extra or {})
    return env
