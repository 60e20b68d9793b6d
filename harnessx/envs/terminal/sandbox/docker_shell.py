"""The docker backend's long-lived shell: `docker exec` of `setsid -w bash` with stdin attached.

Output arrives on the exec's socket in Docker's multiplexed stream format (8-byte frame headers naming
stdout or stderr). An interrupt is SIGINT to the shell's process group, sent by a second exec inside
the container; a kill is SIGKILL to every process of the container except its init (`kill -1`), so
nothing the agent started outlives its shell.
"""

from __future__ import annotations

import select
import struct
import time

from harnessx.errors import EnvironmentFailure

HEADER = struct.Struct(">BxxxL")  # stream (1 stdout, 2 stderr), size
STREAM_NAMES = {1: "stdout", 2: "stderr"}
SHELL = ["setsid", "-w", "/bin/bash", "--noprofile", "--norc"]


class DockerShell:
    def __init__(self, client, container, cwd: str):
        self.api, self.container = client.api, container
        try:
            self.exec_id = self.api.exec_create(container.id, SHELL, stdin=True, stdout=True, stderr=True,
                                                tty=False, workdir=cwd)["Id"]
            raw = self.api.exec_start(self.exec_id, socket=True)
        except Exception as exc:  # the SDK raises several types
            raise EnvironmentFailure(f"docker sandbox cannot start a shell: {str(exc)[:300]}") from None
        self.raw = raw
        self.sock = getattr(raw, "_sock", raw)
        self.buffer = b""
        self.closed = False
        self.group: int | None = None

    def send(self, data: bytes) -> bool:
        if self.closed:
            return False
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            return False

    def read(self, timeout: float) -> list[tuple[str, bytes]]:
        if self.closed:
            time.sleep(min(timeout, 0.05))
            return []
        ready, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
        if not ready:
            return []
        try:
            data = self.sock.recv(1 << 16)
        except BlockingIOError:
            return []
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return [("stdout", b""), ("stderr", b"")]
        self.buffer += data
        out = []
        while len(self.buffer) >= HEADER.size:
            stream, size = HEADER.unpack_from(self.buffer)
            if len(self.buffer) < HEADER.size + size:
                break
            payload = self.buffer[HEADER.size:HEADER.size + size]
            self.buffer = self.buffer[HEADER.size + size:]
            if stream in STREAM_NAMES and payload:
                out.append((STREAM_NAMES[stream], payload))
        return out

    def locate(self, shell_pid: int | None = None) -> None:
        self.group = shell_pid  # `setsid` made the shell its group's leader

    def _signal(self, spec: str) -> bool:
        try:
            result = self.container.exec_run(["/bin/bash", "-c", f"kill {spec}"])
        except Exception:
            return False
        return result.exit_code == 0

    def interrupt(self) -> bool:
        return self.group is not None and self.group > 1 and self._signal(f"-INT -- -{self.group}")

    def exit_code(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                info = self.api.exec_inspect(self.exec_id)
            except Exception:
                return None
            if not info.get("Running") and info.get("ExitCode") is not None:
                return int(info["ExitCode"])
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)

    def kill(self) -> None:
        """Kill every process in the container but its init; idempotent."""
        self._signal("-KILL -1")
        self.closed = True
        for closer in (self.sock, self.raw):
            try:
                closer.close()
            except OSError:
                pass
