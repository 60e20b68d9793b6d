"""The sandbox interface shared by the bwrap, unshare and docker backends.

A sandbox runs shell commands for one episode with the episode's workspace directories mounted at
their real paths (`/app`, `/tests`, `/data`, `/logs`, a private `/tmp` and `/root`), the host's
system directories read-only, a minimal `/etc`, no network, and CPU/memory/time limits. Nothing
else of the host is visible or writable. Where the host allows it, every process of a sandbox joins
one control group (`cgroup.py`): the episode is bounded in processes and memory as a whole, and
`kill_all` takes every process down, daemons included.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from harnessx.envs.terminal.sandbox.cgroup import EpisodeCgroup
from harnessx.errors import EnvironmentFailure

TIMEOUT_EXIT = 124  # what `timeout(1)` returns; reported for commands that ran out of time


@dataclass(frozen=True)
class Limits:
    """Resource limits: CPUs (CPU-seconds = cpus x wall time per command), memory (per process, and
    per episode with a control group), storage (per file, and the workspace's size), processes."""

    cpus: float = 1.0
    memory_mb: int = 2048
    storage_mb: int = 10240
    pids: int = 1024


@dataclass
class Layout:
    """What an episode's sandbox shows: sandbox path -> host directory (read-write, or read-only for
    the targets in `readonly`), env, limits, the task's container image (used by the docker backend
    when it exists locally) and the Debian packages the task declares (their files under `/etc` are
    shown, see etc.py)."""

    mounts: dict[str, Path]
    readonly: frozenset[str] = frozenset()
    env: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    image: str | None = None
    packages: tuple[str, ...] = ()


@dataclass
class ExecResult:
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    duration_s: float = 0.0
    notes: tuple[str, ...] = ()  # what happened to the episode's shell (kept, restarted, exited)


class ShellProcess(Protocol):
    """A long-lived shell in a sandbox: bytes in on stdin, (stream name, bytes) out, b"" at a stream's end."""

    def send(self, data: bytes) -> bool: ...

    def read(self, timeout: float) -> list[tuple[str, bytes]]: ...

    def locate(self, shell_pid: int | None = None) -> None: ...

    def interrupt(self) -> bool: ...

    def exit_code(self, timeout: float) -> int | None: ...

    def kill(self) -> None: ...


class Sandbox(Protocol):
    name: str
    passes_fds: bool  # whether `run` hands `pass_fds` to the command (bwrap, unshare; not docker)

    def start(self, layout: Layout) -> None: ...

    def run(self, command: str, timeout: float, cwd: str = "/app", pass_fds: tuple[int, ...] = ()) -> ExecResult: ...

    def open_shell(self, cwd: str, timeout: float) -> ShellProcess: ...  # the episode's long-lived shell

    def abort(self) -> None: ...  # kill what runs now and refuse what comes; safe from another thread

    def stop(self) -> None: ...


class Running:
    """What a sandbox runs at this moment, so that `abort()` (called from another thread while a
    command or a shell read blocks) can kill it: each entry is a function that SIGKILLs one process
    group. After `abort()`, anything that starts is killed at once, so nothing new outlives it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kills: dict[int, Callable[[], None]] = {}
        self._next = 0
        self.aborted = False

    def add(self, kill: Callable[[], None]) -> int:
        with self._lock:
            self._next += 1
            self._kills[self._next] = kill
            aborted = self.aborted
        if aborted:
            kill()
        return self._next

    def discard(self, entry: int) -> None:
        with self._lock:
            self._kills.pop(entry, None)

    def abort(self) -> None:
        with self._lock:
            self.aborted = True
            kills = list(self._kills.values())
        for kill in kills:
            kill()


def kill_launcher(proc: subprocess.Popen) -> Callable[[], None]:
    """SIGKILL to the process group of a launcher started in its own session, while it has not been
    reaped (its group id cannot have been reused)."""
    def kill() -> None:
        if proc.returncode is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    return kill


class Contained:
    """The control-group part of the bwrap and unshare backends: `contain` at start, `preexec` for
    every launcher, then `exceeded`, `kill_all` and `release`."""

    cgroup: EpisodeCgroup | None = None

    def contain(self, limits: Limits) -> None:
        self.cgroup = EpisodeCgroup.create(limits.pids, limits.memory_mb)

    def preexec(self, limits: Limits, timeout: float) -> Callable[[], None]:
        return rlimits(limits, timeout, self.cgroup.join if self.cgroup else None)

    def exceeded(self) -> list[str]:
        return self.cgroup.exceeded() if self.cgroup else []

    def kill_all(self) -> tuple[int, list[int]]:
        """Kill every process of this sandbox: (processes killed, survivors); (0, []) without a group."""
        return self.cgroup.kill_all() if self.cgroup else (0, [])

    def release(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None


# Signals a launcher may have left ignored (`cmd &` in a script ignores SIGINT and SIGQUIT, `nohup`
# SIGHUP): the sandbox starts from the default, or a timeout could not interrupt the agent's command
# and a verifier relying on SIGINT would fail a correct solution.
INHERITED_IGNORES = (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM)


def rlimits(limits: Limits, timeout: float, join: Callable[[], None] | None = None):
    """A preexec function applying the limits to the sandbox process and everything it starts (and
    moving it into the sandbox's control group first, with `join`), from default signal
    dispositions and an empty signal mask whatever harnessx inherited."""
    cpu = max(1, int(limits.cpus * timeout) + 1)
    memory = limits.memory_mb * 1024 * 1024
    fsize = limits.storage_mb * 1024 * 1024

    def apply() -> None:
        if join is not None:
            join()
        for sig in INHERITED_IGNORES:  # a handler does not survive exec, an ignore does
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return apply


def run_process(argv: list[str], timeout: float, limits: Limits, env: dict[str, str] | None = None,
                running: Running | None = None, preexec: Callable[[], None] | None = None,
                pass_fds: tuple[int, ...] = ()) -> ExecResult:
    """Run a sandbox launcher in its own session (from `/`, so no host directory is its working
    directory); on timeout kill the whole process group. With `running`, the launcher is registered
    there while it runs (so the sandbox's `abort()` kills it)."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, env=env if env is not None else {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                                preexec_fn=preexec or rlimits(limits, timeout), cwd="/", pass_fds=pass_fds)
    except OSError as exc:
        raise EnvironmentFailure(f"cannot start sandbox {argv[0]}: {exc}") from None
    timed_out = False
    kill = kill_launcher(proc)
    entry = running.add(kill) if running is not None else None
    out, err = Bounded(proc.stdout), Bounded(proc.stderr)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill()
        proc.wait()
    finally:
        if entry is not None:
            running.discard(entry)
    code = TIMEOUT_EXIT if timed_out else proc.returncode
    return ExecResult(code, out.text(), err.text(), timed_out, time.monotonic() - started)


OUTPUT_LIMIT = 8 * 1024 * 1024  # bytes of a command's stream kept: its first and last halves
DRAIN_WAIT = 30.0  # seconds for a stream to close once its command has ended


class Bounded:
    """One stream of a sandboxed command, drained on a thread; at most OUTPUT_LIMIT bytes are held
    (the first and last halves), so a command printing without end cannot fill the host's memory."""

    def __init__(self, pipe) -> None:
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0
        self.thread = threading.Thread(target=self.drain, args=(pipe,), daemon=True, name="harnessx-stream")
        self.thread.start()

    def drain(self, pipe) -> None:
        half = OUTPUT_LIMIT // 2
        with pipe:
            while chunk := pipe.read1(1 << 16):
                room = max(0, half - len(self.head))
                self.head += chunk[:room]
                self.tail += chunk[room:]
                if len(self.tail) > half:
                    self.dropped += len(self.tail) - half
                    del self.tail[:len(self.tail) - half]

    def text(self) -> str:
        self.thread.join(DRAIN_WAIT)
        cut = f"\n[... {self.dropped} bytes of output dropped ...]\n".encode() if self.dropped else b""
        return bytes(self.head + cut + self.tail).decode(errors="replace")
