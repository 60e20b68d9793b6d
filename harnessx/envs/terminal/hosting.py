"""Whether this machine can host a task: the packages its Dockerfile (and, for the oracle, its
`solve.sh`) installs must already be present, since nothing can be installed offline."""

from __future__ import annotations

import functools
import importlib.metadata
import re
import subprocess

from harnessx.envs.terminal.spec import TaskSpec


@functools.lru_cache(maxsize=None)
def apt_installed(package: str) -> bool:
    name = package.split("=")[0]
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "install ok installed" in out.stdout


@functools.lru_cache(maxsize=None)
def pip_installed(requirement: str) -> bool:
    name = re.split(r"[<>=!~;\[ ]", requirement.strip(), maxsplit=1)[0]
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def missing(spec: TaskSpec, oracle: bool = False) -> list[str]:
    """Requirements of the task's image and verifier (and of its oracle, if asked) that this host lacks."""
    apt = list(spec.recipe.apt) + (spec.oracle_apt if oracle else [])
    pip = list(spec.recipe.pip) + list(spec.verifier_pip) + (spec.oracle_pip if oracle else [])
    gaps = [f"apt:{p}" for p in dict.fromkeys(apt) if not apt_installed(p)]
    gaps += [f"pip:{p}" for p in dict.fromkeys(pip) if not pip_installed(p)]
    return gaps
