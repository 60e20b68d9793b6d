"""Commands placed first on the sandbox PATH.

`python`/`python3` run the prepared interpreter. `apt-get`/`apt` and `pip`/`pip3` are offline
stand-ins: with no network nothing can be installed, so they succeed only when every requested
package is already present (dpkg for apt, installed distributions for pip) and say so; otherwise
they fail like a package manager that cannot reach its registry. Other pip commands go to the real pip.
"""

from __future__ import annotations

import os
from pathlib import Path

PYTHON = '#!/bin/sh\nexec "{exe}" "$@"\n'

APT = r"""#!/bin/sh
# harnessx offline apt: no registry is reachable inside the sandbox.
sub=""; missing=""; pkgs=""
for a in "$@"; do
  case "$a" in
    -*) ;;
    *) if [ -z "$sub" ]; then sub="$a"; else pkgs="$pkgs $a"; fi ;;
  esac
done
case "$sub" in
  install)
    for p in $pkgs; do
      name="${p%%=*}"
      dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" || missing="$missing $name"
    done
    if [ -n "$missing" ]; then
      echo "E: Unable to locate package$missing (offline sandbox: no network, nothing can be installed)" >&2
      exit 100
    fi
    echo "All requested packages are already installed (offline sandbox).";;
  *) echo "offline sandbox: apt $sub skipped";;
esac
exit 0
"""

PIP = r"""#!/bin/sh
# harnessx offline pip: `install` succeeds only for distributions that are already installed.
if [ "$1" != "install" ]; then exec python3 -m pip "$@"; fi
shift
missing=""
for a in "$@"; do
  case "$a" in
    -*) continue;;
  esac
  name=$(printf '%s' "$a" | sed -e 's/[<>=!~;[].*//')
  python3 -c "import importlib.metadata as m, sys; m.distribution(sys.argv[1])" "$name" 2>/dev/null \
    || missing="$missing $name"
done
if [ -n "$missing" ]; then
  echo "ERROR: Could not find a version that satisfies the requirement$missing (offline sandbox: no network)" >&2
  exit 1
fi
echo "Requirement already satisfied (offline sandbox)."
"""


def write_toolbin(path: Path, python: str) -> None:
    """Write the python wrappers and the offline shims into `path`."""
    scripts = {"python": PYTHON.format(exe=python), "python3": PYTHON.format(exe=python),
               "apt-get": APT, "apt": APT, "pip": PIP, "pip3": PIP}
    for name, text in scripts.items():
        target = path / name
        target.write_text(text, encoding="utf-8")
        os.chmod(target, 0o755)
