"""Masking binaries from the sandbox PATH (FeasiGen's critical-tool masking for terminal tasks).

A masked episode's agent commands run with `PATH` set to one directory of links: one per command
name found on the sandbox's usual PATH (first match wins, as a shell would pick it), minus the
masked names and their aliases (`python` for `python3`, ...). The links live in the episode's private `/tmp`, so nothing outside the episode
changes. Limit: a command called by its absolute path (`/usr/bin/sort`) is not masked; the
links point at the host's system directories, which bwrap and unshare mount (docker images may
differ).
"""

from __future__ import annotations

import os
from pathlib import Path

import harnessx.envs.terminal.sandbox.host as host

LINK_DIR = ".harnessx-path"  # under the episode's /tmp
# Names that run the same program: masking one masks all (the sandbox's python is python3).
ALIASES = ({"python", "python3"}, {"pip", "pip3"}, {"awk", "gawk", "mawk"}, {"gzip", "gunzip", "zcat"})


def expand(masked: frozenset[str]) -> frozenset[str]:
    out = set(masked)
    for group in ALIASES:
        if out & group:
            out |= group
    return frozenset(out)


def _host_dir(sandbox_dir: str) -> Path:
    return host.toolbin() if sandbox_dir == host.TOOLBIN else Path(sandbox_dir)


def write_links(tmp_host: Path, masked: frozenset[str]) -> str:
    """Create the link directory under the episode's host-side /tmp; returns its sandbox path."""
    target = tmp_host / LINK_DIR
    target.mkdir(parents=True, exist_ok=True)
    masked = expand(masked)
    seen: set[str] = set()
    for sandbox_dir in host.PATH.split(":"):
        folder = _host_dir(sandbox_dir)
        if not folder.is_dir():
            continue
        for entry in sorted(os.listdir(folder)):
            if entry in seen or entry in masked or not os.access(folder / entry, os.X_OK):
                continue
            seen.add(entry)
            os.symlink(f"{sandbox_dir}/{entry}", target / entry)
    return f"/tmp/{LINK_DIR}"


def command_prefix(path_dir: str) -> str:
    """Shell text run when a masked episode's agent shell starts."""
    return f"export PATH={path_dir}; hash -r; "
