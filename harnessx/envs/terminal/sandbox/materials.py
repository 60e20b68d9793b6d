"""Where the harness keeps its own files for sandboxes (the minimal `/etc`, the tool directory):
one directory per process, on a small tmpfs of its own when this process may mount one (root).

A bind mount's line in `/proc/self/mountinfo` names the source's path inside its file system; on
the host's disk that is a host path (`/tmp/harnessx-etc-...`), on this tmpfs it is `/etc-...` or
`/bin`. The tmpfs is unmounted when the process exits.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

SIZE_MB = 64  # the /etc copies (about 2 MB each) and the tool directory

_LOCK = threading.Lock()


def _unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)
    shutil.rmtree(path, ignore_errors=True)


@functools.lru_cache(maxsize=1)
def _root() -> Path:
    path = Path(tempfile.mkdtemp(prefix="harnessx-sys-"))
    if os.geteuid() == 0 and shutil.which("mount"):
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE_MB}m,mode=755", "harnessx", str(path)],
                              capture_output=True, check=False)
        if done.returncode == 0:
            atexit.register(_unmount, path)
            return path
    atexit.register(shutil.rmtree, path, True)
    return path


def private_dir(name: str) -> Path:
    """This process's directory `name` for sandbox files (callers make each once, under their lock)."""
    with _LOCK:
        path = _root() / name
    path.mkdir(exist_ok=True)
    return path
