"""unshare fallback (root only): `unshare` + a mount script + `chroot`, one process per command or
one long-lived shell (`open_shell`).

New mount, pid, ipc, uts and net namespaces (loopback only); the new root is a tmpfs holding
read-only binds of the host's system directories and a minimal /etc, a minimal /dev, and the
workspace read-write. It is remounted read-only, and all capabilities are dropped before the command
runs; every process joins the sandbox's control group when there is one.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile

import harnessx.envs.terminal.sandbox.host as host
from harnessx.envs.terminal.sandbox.base import (
    Contained,
    ExecResult,
    Layout,
    Running,
    run_process,
)
from harnessx.envs.terminal.sandbox.etc import etc_dir
from harnessx.envs.terminal.sandbox.pipes import PipeShell
from harnessx.errors import EnvironmentFailure

DEVICES = ("null", "zero", "full", "random", "urandom", "tty")


class UnshareSandbox(Contained):
    name = "unshare"
    passes_fds = True

    def __init__(self) -> None:
        missing = [b for b in ("unshare", "chroot", "setpriv", "mount") if shutil.which(b) is None]
        if missing:
            raise EnvironmentFailure(f"sandbox 'unshare' needs {', '.join(missing)}: apt-get install -y util-linux "
                                     "coreutils (or choose sandbox='bwrap')")
        if os.geteuid() != 0:
            raise EnvironmentFailure("sandbox 'unshare' needs root; install bubblewrap (apt-get install -y "
                                     "bubblewrap) and use sandbox='bwrap'")
        self.layout: Layout | None = None
        self.running = Running()  # this episode's launchers and shells, for abort()
        self.newroot = ""

    def start(self, layout: Layout) -> None:
        self.layout = layout
        self.newroot = tempfile.mkdtemp(prefix="harnessx-root-")
        self.contain(layout.limits)

    def script(self) -> str:
        """The mount script run inside the new namespaces; `$1` is the command, `$2` the cwd."""
        assert self.layout is not None
        r = shlex.quote(self.newroot)
        lines = ["set -e", "hostname sandbox", f"mount -t tmpfs -o mode=755 tmpfs {r}"]

        def bind(source: str, target: str, readonly: bool) -> None:
            t = shlex.quote(self.newroot + target)
            make = f"mkdir -p {t}" if os.path.isdir(source) else f"mkdir -p $(dirname {t}) && touch {t}"
            lines.append(f"{make} && mount --rbind {shlex.quote(source)} {t}")
            if readonly:
                lines.append(f"mount -o remount,bind,ro {t}")

        for d in host.system_dirs():
            bind(d, d, True)
        bind(str(etc_dir(self.layout.packages)), "/etc", True)
        for path, target in host.top_level_entries():
            if target:
                lines.append(f"ln -s {shlex.quote(target)} {shlex.quote(self.newroot + path)}")
            else:
                bind(path, path, True)
        for target, source in sorted(self.layout.mounts.items()):
            bind(str(source), target, target in self.layout.readonly)
        for source, target in host.interpreter_mounts():
            bind(source, target, True)
        for target in host.masks():
            t = shlex.quote(self.newroot + target)
            lines.append(f"mount --bind {shlex.quote(str(host.empty_file()))} {t} && mount -o remount,bind,ro {t}")
        bind(str(host.toolbin()), host.TOOLBIN, True)
        lines += [f"mkdir -p {r}/proc {r}/dev && mount -t proc proc {r}/proc",
                  f"mount -t tmpfs -o mode=755 tmpfs {r}/dev"]
        for dev in DEVICES:
            lines.append(f"touch {r}/dev/{dev} && mount --bind /dev/{dev} {r}/dev/{dev}")
        lines.append(f"mount -o remount,ro,bind {r}")
        env = " ".join(shlex.quote(f"{k}={v}") for k, v in host.base_env(self.layout.env).items())
        lines.append(f'exec chroot {r} /usr/bin/setpriv --bounding-set=-all --inh-caps=-all --no-new-privs '
                     f'/usr/bin/env -i {env} /bin/bash -c \'cd "$1" && exec /bin/bash -c "$0"\' "$1" "$2"')
        return "\n".join(lines)

    def argv(self, command: str, cwd: str) -> list[str]:
        return ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child",
                "--propagation", "private", "/bin/sh", "-c", self.script(), "sandbox", command, cwd]

    def run(self, command: str, timeout: float, cwd: str = "/app", pass_fds: tuple[int, ...] = ()) -> ExecResult:
        assert self.layout is not None, "start() first"
        return run_process(self.argv(command, cwd), timeout, self.layout.limits, running=self.running,
                           preexec=self.preexec(self.layout.limits, timeout), pass_fds=pass_fds)

    def open_shell(self, cwd: str, timeout: float) -> PipeShell:
        """A long-lived shell (pid 1 of its namespace) that leads its own process group (`setsid`)."""
        assert self.layout is not None, "start() first"
        return PipeShell(self.argv("exec setsid /bin/bash --noprofile --norc", cwd), self.layout.limits, timeout,
                         running=self.running, preexec=self.preexec(self.layout.limits, timeout))

    def abort(self) -> None:
        """Kill every command and shell of this sandbox now, and any started later (another thread's)."""
        self.running.abort()

    def stop(self) -> None:
        self.release()
        if self.newroot:
            shutil.rmtree(self.newroot, ignore_errors=True)
        self.layout, self.newroot = None, ""
