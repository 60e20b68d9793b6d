"""The verifier of a feasible task: copy `tests/` in (only now, after the agent phase), run the
task's preparation lines, then pytest with the prepared interpreter inside the sandbox.

Reward is 1.0 when every test passes, 0.0 when tests fail or cannot be collected (often the agent's
missing module); a pytest internal or usage error, or no tests at all, is an environment failure.
"""

from __future__ import annotations

import shlex

from harnessx.envs.terminal.sandbox.base import ExecResult, Sandbox
from harnessx.envs.terminal.spec import TaskSpec
from harnessx.envs.terminal.workspace import Workspace
from harnessx.errors import EnvironmentFailure

PYTEST_ENV = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1"
FAILED = (1, 2)  # tests failed; interrupted (collection errors)


def install_tests(spec: TaskSpec, ws: Workspace) -> None:
    if spec.test_dir.is_dir():
        ws.copy_in(spec.test_dir, "/tests")


def pytest_command(spec: TaskSpec) -> str:
    files = " ".join(shlex.quote(f"/tests/{f}") for f in spec.hx.test_files)
    return f"{PYTEST_ENV} python3 -m pytest -p no:cacheprovider -q -rA {files}"


def run_tests(spec: TaskSpec, ws: Workspace, sandbox: Sandbox) -> tuple[float, ExecResult]:
    install_tests(spec, ws)
    timeout = spec.config.verifier.timeout_sec
    for line in spec.verifier_pre:
        prep = sandbox.run(line, timeout, cwd=spec.workdir)
        if prep.exit_code != 0:
            raise EnvironmentFailure(f"task {spec.id}: verifier preparation {line!r} failed: {prep.stderr[-300:]}")
    result = sandbox.run(pytest_command(spec), timeout, cwd=spec.workdir)
    logs = ws.mounts["/logs"] / "verifier"
    logs.mkdir(parents=True, exist_ok=True)
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
