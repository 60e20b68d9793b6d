"""The verifier of a feasible task: pytest on the task's tests, in a sandbox of its own.

The caller (env.py) has ended the agent (every process killed) and built the verifier's sandbox
(isolation.py): the tests sit read-only in a fresh `/tests` the agent never had, beside the judge
plugin (judge_plugin.py, read-only too). Here the task's preparation lines run, then pytest with the
prepared interpreter, started so that nothing the agent wrote can steer it: `python -I` (no user
site-packages, no PYTHON* variables, not the working directory first on the module path, so an
agent's `pytest.py` or `sitecustomize.py` is never imported), the working directory appended last to
the path by the judge once pytest is configured (tests may import the agent's modules, as under
TB2's `python -m pytest` from the work directory), `--rootdir` and `--confcutdir` at `/tests` (no
conftest.py from elsewhere), the task's own ini file or none (`-c`), and no plugin autoload.

The grade is what the judge reports on a channel the host holds (`Channel`), read by grading.py;
pytest's exit code and output are kept for the log only.
"""

from __future__ import annotations

import os
import shlex
import threading
from dataclasses import dataclass
from pathlib import Path

from harnessx.envs.terminal import hostio
from harnessx.envs.terminal.grading import Verdict, expected_tests, grade
from harnessx.envs.terminal.sandbox.base import ExecResult, Sandbox
from harnessx.envs.terminal.spec import TaskSpec

PYTEST_ENV = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1"
INI_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
JUDGE = "/run/harnessx/judge"  # the judge plugin, read-only
RESULTS = "/run/harnessx/results"  # the result file, for a backend that passes no fd
LAUNCH = "import sys; sys.path.insert(0, {judge!r}); import pytest; sys.exit(pytest.console_main())"
STREAM_LIMIT = 64 * 1024 * 1024  # bytes of results kept; beyond is a flood
JOIN_WAIT = 30.0  # seconds for the last writer of the pipe to be gone once the sandbox has ended


def ini_option(spec: TaskSpec) -> str:
    """`-c` with the task's own ini file in tests/, or with none at all (nothing else is searched)."""
    for name in INI_FILES:
        if (spec.test_dir / name).is_file():
            return f"-c /tests/{name}"
    return "-c /dev/null"


def pytest_command(spec: TaskSpec, channel_env: str) -> str:
    files = " ".join(shlex.quote(f"/tests/{f}") for f in spec.hx.test_files)
    launch = shlex.quote(LAUNCH.format(judge=JUDGE))
    return (f"{PYTEST_ENV} {channel_env} HX_WORKDIR={shlex.quote(spec.workdir)} python3 -I -B -c {launch} "
            f"-p hx_judge -p no:cacheprovider --rootdir=/tests --confcutdir=/tests {ini_option(spec)} -q -rA {files}")


def judge_files(base: Path) -> dict[str, Path]:
    """The judge's read-only directory (the plugin) and the results directory, made by the host."""
    judge, results = base / "judge", base / "results"
    judge.mkdir()
    results.mkdir()
    (judge / "hx_judge.py").write_text((Path(__file__).parent / "judge_plugin.py").read_text(encoding="utf-8"))
    hostio.write_new(results, "stream", b"", mode=0o666)
    return {JUDGE: judge, RESULTS: results}


class Channel:
    """The judge's result stream. A pipe whose write end the sandbox inherits (a thread drains it,
    so a long stream never blocks the tests); where a backend passes no fd, the results file, read
    (without following anything) only once the sandbox is gone."""

    def __init__(self, box: Sandbox, results: Path):
        self.results, self.data, self.flood = results, bytearray(), False
        self.pipe = getattr(box, "passes_fds", False)
        if self.pipe:
            self.read_end, self.write_end = os.pipe()
            self.fds: tuple[int, ...] = (self.write_end,)
            self.env = f"HX_RESULT_FD={self.write_end}"
            self.thread = threading.Thread(target=self.drain, daemon=True, name="harnessx-judge")
            self.thread.start()
        else:
            self.fds, self.env = (), f"HX_RESULT_FILE={RESULTS}/stream"

    def drain(self) -> None:
        while chunk := os.read(self.read_end, 1 << 16):
            if len(self.data) + len(chunk) > STREAM_LIMIT:
                self.flood = True
            else:
                self.data += chunk

    def close(self) -> bytes:
        """Everything the judge wrote (call once the command has returned)."""
        if self.pipe:
            os.close(self.write_end)
            self.thread.join(JOIN_WAIT)
            if self.thread.is_alive():
                self.flood = True  # a writer outlived the sandbox: nothing it wrote is trusted
            else:
                os.close(self.read_end)
            stream = bytes(self.data)
        else:
            try:
                stream = hostio.read_file(self.results, "stream", STREAM_LIMIT)
            except OSError:
                stream = b""
        return stream + (b"\x00flood\n" if self.flood else b"")


def prepare(spec: TaskSpec, sandbox: Sandbox) -> str | None:
    """Run the task's preparation lines; the first that fails, with its error, or None."""
    for line in spec.verifier_pre:
        prep = sandbox.run(line, spec.config.verifier.timeout_sec, cwd=spec.workdir)
        if prep.exit_code != 0:
            return f"{line!r} (exit {prep.exit_code}): {(prep.stderr or prep.stdout)[-300:]}"
    return None


@dataclass
class Run:
    verdict: Verdict
    result: ExecResult


def run_pytest(spec: TaskSpec, sandbox: Sandbox, results: Path) -> Run:
    """pytest over the task's tests, graded from the judge's records."""
    channel = Channel(sandbox, results)
    try:
        result = sandbox.run(pytest_command(spec, channel.env), spec.config.verifier.timeout_sec,
                             cwd=spec.workdir, pass_fds=channel.fds)
    finally:
        if not channel.pipe:  # a file any process left in the sandbox can still write (a daemon the tests
            sandbox.stop()    # started): read only once the sandbox and every process in it are gone
        stream = channel.close()
    verdict = grade(stream, expected_tests(spec.test_dir, spec.hx.test_files), result.exit_code)
    if result.timed_out and verdict.reward == 0.0 and not verdict.excluded:
        verdict.cause += f" (the tests ran out of time, {spec.config.verifier.timeout_sec:g}s)"
    return Run(verdict, result)
