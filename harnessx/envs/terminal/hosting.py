"""Whether this machine can host a task: the packages its Dockerfile (and, for the oracle, its
`solve.sh`) installs must already be present, since nothing can be installed offline, and the
programs those packages ship must run inside the sandbox (`unrunnable`): found on PATH is not
enough (a program whose configuration under `/etc` or whose libraries the sandbox lacks fails there).

A pinned pip requirement of the image is met by the installed distribution of that name (the
image's exact versions are not reproduced); the oracle's pip requirements run through the sandbox's
offline pip, which refuses a version it does not have, so they must be satisfied exactly.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
import shlex
import threading

from packaging.requirements import InvalidRequirement, Requirement

from harnessx.envs.terminal.sandbox.dpkg import files_of, installed
from harnessx.envs.terminal.spec import TaskSpec

BIN_DIRS = ("/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/")
PROBE_TIMEOUT = 300.0  # all of a task's programs, each at most 20 s
# A program that did not run: not executable / not found (126, 127), a crash (SIGILL, SIGABRT,
# SIGBUS, SIGFPE, SIGSEGV), a loader failure, or an error naming a missing file under /etc. Any other
# status is a program that ran (`--version` unknown to it is a usage error: it ran); a program that
# waits until the timeout (124) ran too. Each runs in a scratch directory, removed afterwards.
PROBE = r"""probe_dir=$(mktemp -d) && cd "$probe_dir" || exit 1
for b in "$@"; do
  out=$(timeout -k 5 20 "$b" --version </dev/null 2>&1); rc=$?
  case "$rc" in 126|127|132|134|135|136|139) bad=1;; *) bad=0;; esac
  if [ "$bad" -eq 1 ] \
     || printf '%s' "$out" | grep -qE 'error while loading shared libraries|cannot open shared object|/etc/[^ :]*: No such file'; then
    printf '%s\t%s\t%s\n' "$b" "$rc" "$(printf '%s' "$out" | head -n 1 | cut -c1-200)"
  fi
done
cd / && rm -rf "$probe_dir"
"""


def apt_installed(package: str) -> bool:
    return package.split("=")[0] in installed()


@functools.lru_cache(maxsize=None)
def pip_installed(requirement: str, exact: bool = False) -> bool:
    """Whether a distribution of the requirement's name is installed (with `exact`, in a version the
    requirement's specifier allows)."""
    try:
        req = Requirement(requirement.strip())
    except InvalidRequirement:
        name = re.split(r"[<>=!~;\[ ]", requirement.strip(), maxsplit=1)[0]
        req = None
    else:
        name = req.name
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return not exact or req is None or req.specifier.contains(version, prereleases=True)


def missing(spec: TaskSpec, oracle: bool = False) -> list[str]:
    """Requirements of the task's image and verifier (and of its oracle, if asked) that this host lacks."""
    apt = list(spec.recipe.apt) + (spec.oracle_apt if oracle else [])
    pip = list(spec.recipe.pip) + list(spec.verifier_pip)
    gaps = [f"apt:{p}" for p in dict.fromkeys(apt) if not apt_installed(p)]
    gaps += [f"pip:{p}" for p in dict.fromkeys(pip) if not pip_installed(p)]
    if oracle:
        gaps += [f"pip:{p}" for p in dict.fromkeys(spec.oracle_pip) if not pip_installed(p, exact=True)]
    return gaps


def declared_apt(spec: TaskSpec) -> tuple[str, ...]:
    """The Debian packages the task's image and oracle install (names, versions dropped)."""
    return tuple(sorted({p.split("=")[0] for p in [*spec.recipe.apt, *spec.oracle_apt]}))


def programs(packages: tuple[str, ...]) -> list[str]:
    """The programs `packages` themselves install on PATH (what `dpkg -L` lists in a bin directory).
    Essential packages (coreutils, grep, ...) are left out: every Debian image has them, and the
    sandbox's own shell runs on them."""
    known = installed()
    found = set()
    for package in (p for p in packages if not (p in known and known[p].essential)):
        found.update(f for f in files_of(package) if f.startswith(BIN_DIRS) and f.count("/") in (2, 3))
    return sorted(found)


_PROBED: dict[tuple[str, tuple[str, ...]], list[str]] = {}
_PROBE_LOCK = threading.Lock()


def unrunnable(box, packages: tuple[str, ...]) -> list[str]:
    """One line per program of `packages` that does not run in `box` (`prog --version`, inside the
    sandbox): path, exit status and its first line of output. Cached per sandbox kind and package set."""
    key = (box.name, packages)
    with _PROBE_LOCK:
        if key in _PROBED:
            return _PROBED[key]
    progs = programs(packages)
    if not progs:
        return []
    result = box.run(f"set -- {' '.join(shlex.quote(p) for p in progs)}\n{PROBE}", PROBE_TIMEOUT, cwd="/tmp")
    broken = [line.replace("\t", ": exit ", 1).replace("\t", ": ", 1) for line in result.stdout.splitlines() if line]
    if result.exit_code != 0 and not broken:
        broken = [f"the probe of {', '.join(progs)} failed (exit {result.exit_code}): {result.stderr.strip()[-200:]}"]
    with _PROBE_LOCK:
        _PROBED[key] = broken
    return broken
