"""Commands placed first on the sandbox PATH.

`python`/`python3` run the prepared interpreter. `apt-get`/`apt` and `pip`/`pip3` are offline
stand-ins: with no network nothing can be installed, so they succeed only when every requested
package is already present in a version the request allows (dpkg for apt, with `pkg=version` pins;
installed distributions for pip, with any PEP 508 specifier, marker and `-r` file) and say so;
otherwise they fail like a package manager that cannot reach its registry, naming each requirement
not met and the version installed. Local paths, URLs and editable installs fail the same way. Other
pip commands go to the real pip.
"""

from __future__ import annotations

import os
from pathlib import Path

PYTHON = '#!/bin/sh\nexec "{exe}" "$@"\n'

APT = r"""#!/bin/sh
# harnessx offline apt: no registry is reachable inside the sandbox.
sub=""; missing=""; wrong=""; pkgs=""
for a in "$@"; do
  case "$a" in
    -*) ;;
    *) if [ -z "$sub" ]; then sub="$a"; else pkgs="$pkgs $a"; fi ;;
  esac
done
case "$sub" in
  install)
    for p in $pkgs; do
      name="${p%%=*}"; want=""
      case "$p" in *=*) want="${p#*=}";; esac
      have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null)
      case "$have" in
        "install ok installed "*)
          ver="${have#install ok installed }"
          if [ -n "$want" ] && [ "$want" != "$ver" ]; then wrong="$wrong $name=$want (installed: $ver)"; fi;;
        *) missing="$missing $name";;
      esac
    done
    if [ -n "$missing" ]; then
      echo "E: Unable to locate package$missing (offline sandbox: no network, nothing can be installed)" >&2
      exit 100
    fi
    if [ -n "$wrong" ]; then
      echo "E: Version not available:$wrong (offline sandbox: no network, nothing can be installed)" >&2
      exit 100
    fi
    echo "All requested packages are already installed (offline sandbox).";;
  *) echo "offline sandbox: apt $sub skipped";;
esac
exit 0
"""

PIP = r"""#!/bin/sh
# harnessx offline pip: `install` succeeds only for requirements already satisfied.
if [ "$1" != "install" ]; then exec python3 -m pip "$@"; fi
shift
exec python3 -I "$(dirname "$0")/pip-offline.py" "$@"
"""

PIP_OFFLINE = r'''"""harnessx offline `pip install`: every requirement must already be satisfied."""
import importlib.metadata as metadata
import sys

try:
    from packaging.requirements import InvalidRequirement, Requirement
except ImportError:
    from pip._vendor.packaging.requirements import InvalidRequirement, Requirement

VALUED = {"-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t",
          "--target", "--prefix", "--root", "--src", "--upgrade-strategy", "--progress-bar", "--python-version",
          "--platform", "--abi", "--implementation", "--only-binary", "--no-binary", "--trusted-host",
          "--cache-dir", "--log", "--timeout", "--retries", "--proxy", "--cert", "--client-cert",
          "--exists-action", "--global-option", "--config-settings", "-C", "--report", "--python"}
OFFLINE = "(offline sandbox: no network, nothing can be installed)"


def requirements(args, problems):
    """The requirement strings of a `pip install` command line (with those of its -r files)."""
    found, it = [], iter(args)
    for arg in it:
        if arg in ("-r", "--requirement") or arg.startswith("--requirement="):
            path = arg.split("=", 1)[1] if "=" in arg else next(it, "")
            try:
                with open(path, encoding="utf-8") as fh:
                    lines = [ln.split(" #")[0].strip() for ln in fh]
            except OSError as exc:
                problems.append(f"cannot read requirements file {path!r}: {exc.strerror}")
                continue
            found += requirements([w for ln in lines if ln and not ln.startswith("#")
                                   for w in (ln.split(None, 1) if ln.startswith("-") else [ln])], problems)
        elif arg in ("-e", "--editable"):
            problems.append(f"cannot install {next(it, '')!r} in editable mode {OFFLINE}")
        elif arg in VALUED:
            next(it, None)
        elif not arg.startswith("-"):
            found.append(arg)
    return found


def check(text):
    """None when `text` is satisfied by what is installed, else why not."""
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return f"cannot install {text!r}: local paths and URLs cannot be installed {OFFLINE}"
    if req.marker is not None and not req.marker.evaluate():
        return None
    try:
        version = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        return f"Could not find a version that satisfies the requirement {text} {OFFLINE}"
    if req.specifier and not req.specifier.contains(version, prereleases=True):
        return f"{text} is not satisfied: {req.name} {version} is installed {OFFLINE}"
    print(f"Requirement already satisfied: {req.name} ({version}) (offline sandbox)")
    return None


problems = []
wanted = requirements(sys.argv[1:], problems)
problems += [p for p in map(check, wanted) if p]
if not wanted and not problems:
    problems.append("You must give at least one requirement to install")
for problem in problems:
    print(f"ERROR: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
'''


def write_toolbin(path: Path, python: str) -> None:
    """Write the python wrappers and the offline shims into `path`."""
    scripts = {"python": PYTHON.format(exe=python), "python3": PYTHON.format(exe=python),
               "apt-get": APT, "apt": APT, "pip": PIP, "pip3": PIP, "pip-offline.py": PIP_OFFLINE}
    for name, text in scripts.items():
        target = path / name
        target.write_text(text, encoding="utf-8")
        os.chmod(target, 0o755)
