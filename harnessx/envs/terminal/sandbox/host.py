"""What of the host a sandbox exposes, read-only: system directories, a minimal `/etc` (`etc.py`),
the prepared interpreter and the harness tool directory (python links and offline package-manager shims).

Home directories, project trees and everything else stay invisible, so an agent cannot read a task's
tests or solution from where they are stored. Files of the interpreter's site-packages that name a
host directory (an editable install's finder and `.pth` hook, its `direct_url.json`, `.egg-link`
files, `.pth` path lines outside the interpreter) are covered with an empty file (`masks`).
"""

from __future__ import annotations

import functools
import json
import os
import site
import sys
import threading
from pathlib import Path

from harnessx.envs.terminal.sandbox.materials import private_dir
from harnessx.envs.terminal.sandbox.shims import write_toolbin

SYSTEM_DIRS = ("/usr", "/opt", "/var/lib/dpkg")  # /etc: the minimal one of etc.py
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


VENV_TARGET = "/run/harnessx/venv"  # where a virtualenv is mounted, so its host path (and project) stays hidden


def _under_system(path: str) -> bool:
    return any(path == d or path.startswith(d + "/") for d in system_dirs())


def _venv() -> str | None:
    """The real path of the running virtualenv, when there is one outside the system dirs."""
    prefix, base = os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)
    return prefix if prefix != base and not _under_system(prefix) else None


def interpreter_mounts() -> list[tuple[str, str]]:
    """(host source, sandbox target) for the prepared interpreter: a virtualenv at VENV_TARGET (never at
    its host path, which may lie inside a project tree, e.g. `.venv/` of the checkout) and the base
    installation its `python` links to, unless a system dir already holds them."""
    mounts = []
    venv = _venv()
    if venv:
        mounts.append((venv, VENV_TARGET))
    base = os.path.realpath(sys.base_prefix)
    if not _under_system(base):
        mounts.append((base, base))
    return sorted(mounts)


def _names_host_dir(pth: str, prefix: str) -> bool:
    """Whether a `.pth` file adds a directory outside the interpreter, or imports an editable finder."""
    try:
        lines = Path(pth).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    for line in lines:
        line = line.strip()
        if "__editable__" in line or (line.startswith("/") and not line.startswith(prefix + "/")):
            return True
    return False


def _editable_record(dist_info: str) -> bool:
    try:
        with open(os.path.join(dist_info, "direct_url.json"), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and str(data.get("url", "")).startswith("file:")


def _host_traces(site_dir: str, prefix: str) -> list[str]:
    found = []
    try:
        entries = sorted(os.scandir(site_dir), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        name = entry.name
        editable = name.startswith("__editable__") and entry.is_file() or name.endswith(".egg-link")
        if editable or name.endswith(".pth") and _names_host_dir(entry.path, prefix):
            found.append(entry.path)
        elif name.endswith(".dist-info") and _editable_record(entry.path):
            found.append(os.path.join(entry.path, "direct_url.json"))
    return found


def _to_sandbox(path: str) -> str | None:
    """A host path of the interpreter, as the sandbox sees it (None when the sandbox does not show it)."""
    for source, target in interpreter_mounts():
        if path.startswith(source + "/"):
            return target + path[len(source):]
    return path if _under_system(path) else None


@functools.lru_cache(maxsize=1)
def masks() -> tuple[str, ...]:
    """Sandbox paths of site-packages files that name a host directory (covered with an empty file)."""
    prefix = os.path.realpath(sys.prefix)
    found = []
    for site_dir in sorted({os.path.realpath(d) for d in site.getsitepackages()}):
        for path in _host_traces(site_dir, prefix):
            target = _to_sandbox(path)
            if target:
                found.append(target)
    return tuple(found)


def interpreter_dirs() -> list[str]:
    """Host directories the interpreter mounts come from (kept for callers that list them)."""
    return [source for source, _ in interpreter_mounts()]


def sandbox_python() -> str:
    """The interpreter's path inside the sandbox: the running executable with `..` and symlinked
    directories resolved (realpath of its folder; the file itself may be a venv's link to the base
    python and is kept, so the venv stays active), mapped into VENV_TARGET for a virtualenv."""
    exe = os.path.abspath(sys.executable)
    exe = os.path.join(os.path.realpath(os.path.dirname(exe)), os.path.basename(exe))
    venv = _venv()
    if venv and exe.startswith(venv + "/"):
        return VENV_TARGET + exe[len(venv):]
    return exe


_TOOLBIN_LOCK = threading.Lock()  # episodes start on several threads; the directory is made once


@functools.lru_cache(maxsize=1)
def _make_toolbin() -> Path:
    path = private_dir("bin")
    write_toolbin(path, sandbox_python())
    (path / ".empty").write_bytes(b"")  # what masks() are covered with
    return path


def empty_file() -> Path:
    return toolbin() / ".empty"


def toolbin() -> Path:
    """A per-process directory holding `python`/`python3` links and the offline shims."""
    with _TOOLBIN_LOCK:
        return _make_toolbin()


def base_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment every sandboxed command starts with (the host's is never inherited)."""
    env = {"PATH": PATH, "HOME": "/root", "USER": "root", "TERM": "dumb", "LC_ALL": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "DEBIAN_FRONTEND": "noninteractive"}
    env.update({k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ})
    env.update(extra or {})
    return env
