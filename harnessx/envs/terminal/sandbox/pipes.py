"""A long-lived sandboxed shell process on pipes (the bwrap and unshare backends).

The launcher runs in its own session; the shell inside the sandbox leads its own process group
(bwrap's `--new-session` init, `setsid` under unshare). An interrupt is SIGINT to that group only;
a kill is SIGKILL to the launcher's group, which takes the sandbox's pid namespace (and so every
process the agent started, daemonised or not) with it.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable

from harnessx.envs.terminal.sandbox.base import Limits, Running, rlimits
from harnessx.errors import EnvironmentFailure

STREAMS = ("stdout", "stderr")
CHUNK = 1 << 16
LAUNCHER_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}


class PipeShell:
    """One shell process: bytes in on stdin, (stream, bytes) out; b"" marks a stream's end."""

    def __init__(self, argv: list[str], limits: Limits, timeout: float, shell_name: str = "bash",
                 running: Running | None = None, preexec: Callable[[], None] | None = None,
                 pass_fds: tuple[int, ...] = ()):
        self.shell_name = shell_name
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         start_new_session=True, env=LAUNCHER_ENV, bufsize=0, cwd="/",
                                         preexec_fn=preexec or rlimits(limits, timeout), pass_fds=pass_fds)
        except OSError as exc:
            raise EnvironmentFailure(f"cannot start sandbox shell {argv[0]}: {exc}") from None
        self.selector = selectors.DefaultSelector()
        for name, pipe in zip(STREAMS, (self.proc.stdout, self.proc.stderr)):
            os.set_blocking(pipe.fileno(), False)
            self.selector.register(pipe, selectors.EVENT_READ, name)
        self.open = set(STREAMS)
        self.group: int | None = None
        self.running = running
        self.entry = running.add(self.signal_kill) if running is not None else None

    def send(self, data: bytes) -> bool:
        """Write to the shell's stdin; False when the shell is gone (its stdin is closed)."""
        try:
            self.proc.stdin.write(data)
            return True
        except (BrokenPipeError, ValueError, OSError):
            return False

    def read(self, timeout: float) -> list[tuple[str, bytes]]:
        """Whatever arrived within `timeout` seconds (empty on timeout)."""
        if not self.open:
            time.sleep(min(timeout, 0.05))
            return []
        out = []
        for key, _ in self.selector.select(max(0.0, timeout)):
            try:
                data = os.read(key.fileobj.fileno(), CHUNK)
            except BlockingIOError:
                continue
            if not data:
                self.selector.unregister(key.fileobj)
                self.open.discard(key.data)
            out.append((key.data, data))
        return out

    def locate(self, shell_pid: int | None = None) -> None:
        """Find the shell's process group (call once the shell has answered; its pid as the sandbox
        sees it is no use from the host)."""
        self.group = shell_group(self.proc.pid, self.shell_name)

    def inner_processes(self) -> list[int]:
        """Host pids of what runs in this shell's sandbox besides its plumbing (bwrap's own processes
        and the shell itself): the agent's jobs and daemons."""
        shell, found = None, []
        for pid in descendants(self.proc.pid):
            info = _ppid_and_group(pid)
            if info is None or info[0] == "bwrap":
                continue
            if shell is None and info[0] == self.shell_name:
                shell = pid
                continue
            found.append(pid)
        return found

    def interrupt(self) -> bool:
        """SIGINT to the shell's process group (never the launcher's); False when it cannot be sent.
        Only while the launcher lives: its sandbox (and so the group's leader) lives as long, so the
        group id cannot have been reused."""
        if self.group is None or self.group == self.proc.pid or self.proc.poll() is not None:
            return False
        try:
            os.killpg(self.group, signal.SIGINT)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def exit_code(self, timeout: float) -> int | None:
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return 128 - code if code < 0 else code  # killed by a signal: the shell convention 128+N

    def signal_kill(self) -> None:
        """SIGKILL to the shell's group, then the launcher's (which takes the sandbox's pid namespace
        with it), only while the launcher has not been reaped (see interrupt). Nothing is closed, so
        another thread may call it while this shell's reader blocks: the reader then sees the streams end."""
        if self.proc.returncode is None:
            groups = [g for g in (self.group,) if g is not None and g != self.proc.pid] + [self.proc.pid]
            for group in groups:
                try:
                    os.killpg(group, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    def kill(self) -> None:
        """`signal_kill`, then reap the launcher and close the pipes; idempotent."""
        if self.proc.poll() is None:
            self.signal_kill()
        if self.running is not None and self.entry is not None:
            self.running.discard(self.entry)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            self.selector.close()
        except (OSError, ValueError):
            pass
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                pipe.close()
            except OSError:
                pass
        self.open.clear()


def _ppid_and_group(pid: int) -> tuple[str, int, int] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode(errors="replace")
    except OSError:
        return None
    comm = raw[raw.index("(") + 1:raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2:].split()
    return comm, int(fields[1]), int(fields[2])


def descendants(root: int) -> list[int]:
    """Host pids below `root`, breadth first (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _ppid_and_group(int(entry))
            if info:
                children.setdefault(info[1], []).append(int(entry))
    order, queue = [], list(children.get(root, []))
    while queue:
        pid = queue.pop(0)
        order.append(pid)
        queue += sorted(children.get(pid, []))
    return order


def shell_group(launcher: int, name: str) -> int | None:
    """The process group of the first process named `name` below the launcher."""
    for pid in descendants(launcher):
        info = _ppid_and_group(pid)
        if info and info[0] == name:
            return info[2]
    return None
