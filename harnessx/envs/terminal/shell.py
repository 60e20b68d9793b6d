"""One persistent shell per episode: a long-lived `bash` inside the sandbox, fed commands on stdin.

Each command is sent as a quoted here-document (its delimiter holds a fresh random token), run with
`eval` in the shell itself (so `cd`, `export`, functions and background jobs persist) with stdin from
/dev/null, and followed by the token and the exit code on the shell's own stdout and stderr (fds 98
and 99, opened at start, so `exec >file` in a command does not hide them). The token is new for
every command and never appears in anything the command can print, so output that imitates the
protocol, or repeats an earlier token, cannot end a command early.

A command that outlives its timeout is interrupted (SIGINT to the shell's process group: the
foreground command gets it, background jobs ignore it as in any non-interactive shell, and the shell
traps it). If the shell has not answered `INTERRUPT_GRACE` seconds later it is killed and restarted.
A command that ends the shell (`exit 3`, `set -e` and a failure) is reported with the shell's exit
status; the next command starts a fresh shell. Either restart is said in the tool result. `xtrace`
and `verbose` are switched off after every command (they would print the protocol); every other
shell option persists.
"""

from __future__ import annotations

import atexit
import secrets
import time
import weakref
from dataclasses import dataclass, field
from typing import Protocol

from harnessx.envs.terminal.sandbox.base import TIMEOUT_EXIT, ExecResult, ShellProcess
from harnessx.errors import EnvironmentFailure

INTERRUPT_GRACE = 3.0  # seconds the shell has to answer after SIGINT before it is killed and restarted
START_TIMEOUT = 60.0
EXIT_WAIT = 5.0  # seconds to collect the exit status of a shell whose streams closed
CAPTURE_LIMIT = 4 * 1024 * 1024  # bytes kept per stream and command: the first and last halves

KEPT = "interrupted after the {t:g}s timeout; the shell was kept (working directory and variables persist)"
RESTARTED = ("killed after the {t:g}s timeout; the command did not stop on interrupt, so the shell was restarted "
             "in {cwd}: working directory, variables and background processes were reset")
EXITED = "the shell ended (exit status {code}); the next call starts a fresh shell in {cwd}"
FRESH = "fresh shell in {cwd}: the previous one {why}; working directory, variables and background processes were reset"


class ShellHost(Protocol):
    def open_shell(self, cwd: str, timeout: float) -> ShellProcess: ...


@dataclass
class Capture:
    """One stream's output for one command, read until the command's token line.

    Bytes are held back until they cannot be the start of the token, so the token is found even when
    split across reads. Everything up to `limit` is kept, else the first and last halves."""

    token: bytes
    limit: int = CAPTURE_LIMIT
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    held: bytes = b""
    dropped: int = 0
    done: bool = False
    number: int | None = None
    after: bytes = b""  # what followed the token line (a background job's output): the next command's

    def add(self, data: bytes) -> None:
        if self.done:
            self.after += data
            return
        buf = self.held + data
        at = buf.find(self.token)
        if at < 0:
            keep = len(self.token) - 1
            self._commit(buf[:-keep] if len(buf) > keep else b"")
            self.held = buf[-keep:] if len(buf) > keep else buf
            return
        self._commit(buf[:at])
        rest = buf[at + len(self.token):]
        line_end = rest.find(b"\n")
        if line_end < 0:
            self.held = buf[at:]  # the token without its line end yet
            return
        self.done, self.held = True, b""
        self.number = int(rest[:line_end].strip() or b"0")
        self.after = rest[line_end + 1:]

    def finish(self) -> None:
        """The command will not finish normally: keep what was held back."""
        if not self.done:
            self._commit(self.held)
            self.held = b""

    def _commit(self, data: bytes) -> None:
        half = self.limit // 2
        room = half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > half:
            cut = len(self.tail) - half
            self.dropped += cut
            del self.tail[:cut]

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes dropped ...]\n".encode() if self.dropped else b""
        return (bytes(self.head) + middle + bytes(self.tail)).decode(errors="replace")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def command_block(command: str, token: str) -> bytes:
    """The shell text that runs one command and reports its end (see the module docstring). Every
    step is `builtin`-qualified, so a function the agent named `read`, `eval` or `printf` cannot
    change what runs (one named `builtin` makes the command hang, and the shell is restarted)."""
    body = command if command.endswith("\n") else command + "\n"
    return ("builtin trap : INT\n"
            f"IFS= builtin read -r -d '' __hx_cmd <<'HX_END_{token}' || :\n{body}HX_END_{token}\n"  # read ends 1
            'builtin eval "$__hx_cmd" </dev/null\n'
            "\n"  # after an eval that hit EOF mid-quote, bash 5.2 misparses a `{` that follows at once
            "{ __hx_rc=$?; builtin set +vx; } 2>/dev/null\n"
            f"builtin printf '%s\\n' {token} >&99; builtin printf '%s %d\\n' {token} \"$__hx_rc\" >&98; "
            "builtin unset __hx_cmd __hx_rc\n").encode()


def start_block(token: str, init: str) -> bytes:
    return ("exec 98>&1 99>&2\ntrap : INT\n" + (init.rstrip("\n") + "\n" if init else "") +
            f"builtin printf '%s\\n' {token} >&99; builtin printf '%s %d\\n' {token} $$ >&98\n").encode()


_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_all() -> None:  # an interpreter that exits mid-episode leaves no shell behind
    for session in list(_LIVE):
        session.close()


class ShellSession:
    """The episode's shell. `run` is blocking, like `Sandbox.run`; `close` kills the shell's group."""

    def __init__(self, host: ShellHost, cwd: str = "/app", init: str = "", timeout: float = 180.0):
        self.host, self.cwd, self.init, self.timeout = host, cwd, init, timeout
        self.proc: ShellProcess | None = None
        self.pending: str | None = None  # why the next command runs in a fresh shell
        self.starts = 0
        self.shell_pid: int | None = None  # the shell's pid as the sandbox sees it
        self.closed = False
        self.carry: dict[str, bytes] = {"stdout": b"", "stderr": b""}
        self.ended: set[str] = set()
        _LIVE.add(self)

    # --- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        self.proc = self.host.open_shell(self.cwd, self.timeout)
        self.starts += 1
        self.carry, self.ended = {"stdout": b"", "stderr": b""}, set()
        token = secrets.token_hex(16)
        out, err = Capture(token.encode()), Capture(token.encode())
        sent = self.proc.send(start_block(token, self.init))
        state = self._collect(out, err, time.monotonic() + (START_TIMEOUT if sent else 1.0))
        if state != "done":
            out.finish()
            err.finish()
            self._fail_start(f"no answer ({state})", out.text(), err.text())
        self.carry = {"stdout": out.after, "stderr": err.after}
        self.shell_pid = out.number
        self.proc.locate(self.shell_pid)

    def _fail_start(self, why: str, out: str, err: str) -> None:
        self._kill()
        raise EnvironmentFailure(f"the sandbox shell did not start: {why}: {(err or out)[-400:]}")

    def _kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc = None

    def close(self) -> None:
        """Kill the shell and everything it started; idempotent."""
        self.closed = True
        self._kill()
        _LIVE.discard(self)

    # --- commands -------------------------------------------------------------------------------
    def run(self, command: str, timeout: float) -> ExecResult:
        if self.closed:
            raise EnvironmentFailure("the episode's shell is closed")
        notes: list[str] = []
        if self.proc is None:
            if self.pending:
                notes.append(FRESH.format(cwd=self.cwd, why=self.pending))
            self.pending = None
            self.start()
        assert self.proc is not None
        started = time.monotonic()
        token = secrets.token_hex(16)
        out, err = Capture(token.encode()), Capture(token.encode())
        sent = self.proc.send(command_block(command, token))
        state = self._collect(out, err, started + timeout) if sent else "exited"
        code, timed_out = out.number, state == "timeout"
        if timed_out:
            if self.proc.interrupt():
                state = self._collect(out, err, time.monotonic() + INTERRUPT_GRACE)
            if state != "exited":
                notes.append((KEPT if state == "done" else RESTARTED).format(t=timeout, cwd=self.cwd))
            code = TIMEOUT_EXIT
        if state == "exited":
            status = self.proc.exit_code(EXIT_WAIT)
            code = TIMEOUT_EXIT if status is None or timed_out else status
            status = TIMEOUT_EXIT if status is None else status
            self._kill()
            self.pending = f"ended with exit status {status}"
            if timed_out:
                notes.append(f"interrupted after the {timeout:g}s timeout")
            notes.append(EXITED.format(code=status, cwd=self.cwd))
        elif state == "done":
            self.carry = {"stdout": out.after, "stderr": err.after}
        else:  # still running after the interrupt: a fresh shell now, so the next call is not delayed
            self._kill()
            self.start()
        out.finish()
        err.finish()
        return ExecResult(code if code is not None else 0, out.text(), err.text(), timed_out,
                          time.monotonic() - started, notes=tuple(notes))

    def _collect(self, out: Capture, err: Capture, deadline: float) -> str:
        """Read both streams until each shows the token ("done"), both end ("exited") or the deadline
        ("timeout"). Output left over from the previous command (a background job's) comes first."""
        assert self.proc is not None
        caps = {"stdout": out, "stderr": err}
        for name, data in self.carry.items():
            if data:
                caps[name].add(data)
        self.carry = {"stdout": b"", "stderr": b""}
        while True:
            if out.done and err.done:
                return "done"
            if self.ended == {"stdout", "stderr"}:
                return "exited"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            for name, data in self.proc.read(min(remaining, 1.0)):
                if data:
                    caps[name].add(data)
                else:
                    self.ended.add(name)
