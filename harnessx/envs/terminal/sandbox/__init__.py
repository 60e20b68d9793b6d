"""Sandboxes for the terminal environment, chosen by name: `bwrap`, `unshare` or `docker`.

`make_sandbox(None)` picks bwrap when it is installed and falls back to unshare (root); when neither
can run it raises an EnvironmentFailure that says how to install one. Commands never run unsandboxed.
"""

from __future__ import annotations

import shutil

from harnessx.envs.terminal.sandbox.base import ExecResult, Layout, Limits, Sandbox
from harnessx.errors import EnvironmentFailure, InputError, one_of

NAMES = ("bwrap", "unshare", "docker")


def default_sandbox() -> str:
    return "bwrap" if shutil.which("bwrap") else "unshare"


def make_sandbox(name: str | None = None, **options) -> Sandbox:
    """A new sandbox of the named kind (None = the default); raises if it cannot run here."""
    name = name or default_sandbox()
    if name == "bwrap":
        from harnessx.envs.terminal.sandbox.bwrap import BwrapSandbox

        return BwrapSandbox()
    if name == "unshare":
        from harnessx.envs.terminal.sandbox.unshare import UnshareSandbox

        try:
            return UnshareSandbox()
        except EnvironmentFailure as exc:
            raise EnvironmentFailure(f"{exc}; no sandbox is available (bwrap is not installed either)") from None
    if name == "docker":
        from harnessx.envs.terminal.sandbox.docker import DockerSandbox

        return DockerSandbox(**options)
    raise InputError("sandbox", f"unknown sandbox {name!r}", one_of(NAMES))


__all__ = ["ExecResult", "Layout", "Limits", "Sandbox", "make_sandbox", "default_sandbox", "NAMES"]
