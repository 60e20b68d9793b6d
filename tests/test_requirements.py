"""A test whose extra or service is missing skips with the reason, and fails instead under the
matching HARNESSX_REQUIRE_* variable: run here on a few scale-out and BFCL tests in a pytest of
their own, with Ray, psycopg and bfcl-eval hidden (as on a machine with only the README's install)
and no PostgreSQL configured."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HIDDEN = ("ray", "psycopg", "bfcl_eval")
FILES = ["tests/test_scale_startup.py", "tests/test_scale_ray_head.py", "tests/test_bfcl_conformance.py"]
# sys.modules[name] = None makes `import name` fail and find_spec(name) answer None: not installed
RUN = f"import sys, pytest; sys.modules.update(dict.fromkeys({HIDDEN!r})); sys.exit(pytest.main(sys.argv[1:]))"


def run_without_extras(**env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("HARNESSX_REQUIRE_") and k not in ("HARNESSX_PG_URL", "PYTEST_ADDOPTS")}
    # `-m ""`: these files are in the slow set, which the default options leave out; `-n 0`: one process
    return subprocess.run([sys.executable, "-c", RUN, "-q", "-rs", "-p", "no:cacheprovider", "-m", "", "-n", "0",
                           *FILES], check=False,
                          cwd=REPO, capture_output=True, text=True, env={**base, **env})


@pytest.mark.slow
def test_missing_extras_and_services_skip_with_the_reason():
    out = run_without_extras()
    assert out.returncode == 0, out.stdout[-4000:]
    tail = out.stdout.split("short test summary info")[-1]
    assert "failed" not in tail and "error" not in tail, tail
    assert "needs psycopg (pip install -e '.[postgres]')" in tail
    assert "needs ray (pip install -e '.[ray]')" in tail
    assert "needs bfcl_eval (pip install --no-deps bfcl-eval==2026.3.23 mpmath)" in tail


@pytest.mark.slow
def test_a_require_variable_turns_the_skip_into_a_failure():
    out = run_without_extras(HARNESSX_REQUIRE_RAY="1", HARNESSX_REQUIRE_POSTGRES="1")
    assert out.returncode != 0
    assert "ray is required here (HARNESSX_REQUIRE_RAY=1) but missing: needs ray" in out.stdout
    assert "postgres is required here (HARNESSX_REQUIRE_POSTGRES=1) but missing: needs psycopg" in out.stdout
    assert "needs bfcl_eval" in out.stdout  # its variable is not set: still a skip
