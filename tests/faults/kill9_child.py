"""What one search process of test_kill9.py runs: the CLI's own entry point (`harnessx.cli.main.app`)
with the given argv, working directory and environment, after wrapping the two places where money is
spent so that every paid rollout and every model call appends one line to an accounting file.

Each line is one O_APPEND write(2), done before the work it records starts, so a SIGKILL at any
later point cannot lose it. Lines: `<pid> rollout <key>` (the executor starts a rollout: it is paid)
and `<pid> call <key>` (one LiteLLM completion, attributed to its rollout through a context variable).
"""

from __future__ import annotations

import contextvars
import os
import sys

_rollout = contextvars.ContextVar("kill9_rollout", default="-")


def _append(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def run_cli(argv: list[str], cwd: str, env: dict[str, str], accounting: str, output: str) -> None:
    os.chdir(cwd)
    os.environ.update(env)
    out = os.open(output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    sys.stdout.flush(), sys.stderr.flush()
    os.dup2(out, 1), os.dup2(out, 2)

    import litellm

    from harnessx.cli.main import app
    from harnessx.executors.inprocess import InProcessExecutor

    pid, real_run, real_completion = os.getpid(), InProcessExecutor.run, litellm.acompletion

    async def run(self, job):
        _append(accounting, f"{pid} rollout {job.key}\n")
        token = _rollout.set(job.key)
        try:
            return await real_run(self, job)
        finally:
            _rollout.reset(token)

    async def acompletion(*args, **kwargs):
        _append(accounting, f"{pid} call {_rollout.get()}\n")
        return await real_completion(*args, **kwargs)

    InProcessExecutor.run, litellm.acompletion = run, acompletion
    app(args=argv, prog_name="harnessx")
