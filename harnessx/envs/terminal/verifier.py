"""The verifier of a feasible task: pytest on the task's tests, in a sandbox of its own.

The caller (env.py) has ended the agent (every process killed) and built the verifier's sandbox
(isolation.py): the tests sit in a fresh `/tests` the agent never had. Here the task's preparation
lines run, then pytest with the prepared interpreter, started so that nothing the agent wrote can
steer it: `python -I` (no user site-packages, no PYTHON* variables, not the working directory first
on the module path, so an agent's `pytest.py` or `sitecustomize.py` is never imported), the working
directory appended last to the path (tests may import the agent's modules, as under TB2's
`python -m pytest` from the work directory), `--rootdir` and `--confcutdir` at `/tests` (no
conftest.py from elsewhere), the task's own ini file or none (`-c`), and no plugin autoload.

Reward is 1.0 when every test passes, 0.0 when tests fail or cannot be collected (often the agent's
missing module); a pytest internal or usage error, or no tests at all, is an environment failure.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from harnessx.envs.terminal.sandbox.base import ExecResult, Sandbox
from harnessx.envs.terminal.spec import TaskSpec
from harnessx.errors import EnvironmentFailure

PYTEST_ENV = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1"
FAILED = (1, 2)  # tests failed; interrupted (collection errors)
INI_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
LAUNCH = "import sys, pytest; sys.path.append({cwd!r}); sys.exit(pytest.console_main())"


def ini_option(spec: TaskSpec) -> str:
    """`-c` with the task's own ini file in tests/, or with none at all (nothing else is searched)."""
    for name in INI_FILES:
        if (spec.test_dir / name).is_file():
            return f"-c /tests/{name}"
    return "-c /dev/null"


def pytest_command(spec: TaskSpec) -> str:
    files = " ".join(shlex.quote(f"/tests/{f}") for f in spec.hx.test_files)
    launch = shlex.quote(LAUNCH.format(cwd=spec.workdir))
    return (f"{PYTEST_ENV} python3 -I -B -c {launch} -p no:cacheprovider --rootdir=/tests --confcutdir=/tests "
            f"{ini_option(spec)} -q -rA {files}")


def run_tests(spec: TaskSpec, logs: Path, sandbox: Sandbox) -> tuple[float, ExecResult]:
    """Run the preparation lines and pytest in the verifier's sandbox; write the logs (host side) to
    `logs`, a directory the host has just made afresh."""
    timeout = spec.config.verifier.timeout_sec
    for line in spec.verifier_pre:
        prep = sandbox.run(line, timeout, cwd=spec.workdir)
        if prep.exit_code != 0:
            raise EnvironmentFailure(f"task {spec.id}: verifier preparation {line!r} failed: {prep.stderr[-300:]}")
    result = sandbox.run(pytest_command(spec), timeout, cwd=spec.workdir)
    (logs / "test-stdout.txt").write_text(result.stdout + result.stderr, encoding="utf-8")
    if result.exit_code == 0:
        reward = 1.0
    elif result.exit_code in FAILED or result.timed_out:
        reward = 0.0
    else:
        raise EnvironmentFailure(f"task {spec.id}: pytest could not run (exit {result.exit_code}): "
                                 f"{(result.stdout + result.stderr)[-400:]}")
    (logs / "reward.txt").write_text(f"{reward:g}\n", encoding="utf-8")
    return reward, result
