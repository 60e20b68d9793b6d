"""bubblewrap backend: one `bwrap` process per command, or one long-lived shell (`open_shell`).

Fresh namespaces (pid, ipc, uts, net: loopback only), all capabilities dropped, an empty root made
read-only after the host's system directories and a minimal `/etc` are bound read-only and the
workspace read-write; every process joins the sandbox's control group when there is one.

bwrap reads its options from a memory file (`--args FD`), not its command line: its process is the
sandbox's pid 1, whose `/proc/1/cmdline` every sandboxed process can read, and the options name the
host directories behind each mount.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

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


class BwrapSandbox(Contained):
    name = "bwrap"
    passes_fds = True

    def __init__(self) -> None:
        self.binary = shutil.which("bwrap")
        if self.binary is None:
            raise EnvironmentFailure("sandbox 'bwrap' is not installed: apt-get install -y bubblewrap "
                                     "(or choose sandbox='unshare' or 'docker')")
        self.layout: Layout | None = None
        self.running = Running()  # this episode's launchers and shells, for abort()

    def start(self, layout: Layout) -> None:
        self.layout = layout
        self.contain(layout.limits)

    def options(self, cwd: str) -> list[str]:
        """bwrap's options for this layout (namespaces, mounts, environment), the command aside."""
        assert self.layout is not None, "start() first"
        args = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--hostname", "sandbox"]
        for d in host.system_dirs():
            args += ["--ro-bind", d, d]
        args += ["--ro-bind", str(etc_dir(self.layout.packages)), "/etc"]
        for path, target in host.top_level_entries():
            args += ["--symlink", target, path] if target else ["--ro-bind", path, path]
        args += ["--proc", "/proc", "--dev", "/dev"]
        for target, source in sorted(self.layout.mounts.items()):
            args += ["--ro-bind" if target in self.layout.readonly else "--bind", str(source), target]
        for source, target in host.interpreter_mounts():
            args += ["--ro-bind", source, target]
        for target in host.masks():
            args += ["--ro-bind", str(host.empty_file()), target]
        args += ["--ro-bind", str(host.toolbin()), host.TOOLBIN, "--remount-ro", "/", "--chdir", cwd, "--clearenv"]
        for key, value in host.base_env(self.layout.env).items():
            args += ["--setenv", key, value]
        return args

    @contextmanager
    def launcher(self, command: str | None, cwd: str):
        """(argv, fds to pass) for one command, or (command None) a shell reading commands on stdin;
        the options travel in a memory file that is closed once the launcher has started."""
        fd = os.memfd_create("bwrap-args", 0)
        try:
            os.write(fd, b"".join(a.encode() + b"\0" for a in self.options(cwd)))
            os.lseek(fd, 0, os.SEEK_SET)
            shell = ["/bin/bash", "--noprofile", "--norc"] if command is None else ["/bin/bash", "-c", command]
            yield [self.binary, "--args", str(fd), "--", *shell], (fd,)
        finally:
            os.close(fd)

    def run(self, command: str, timeout: float, cwd: str = "/app", pass_fds: tuple[int, ...] = ()) -> ExecResult:
        assert self.layout is not None, "start() first"
        with self.launcher(command, cwd) as (argv, fds):
            return run_process(argv, timeout, self.layout.limits, running=self.running,
                               preexec=self.preexec(self.layout.limits, timeout), pass_fds=(*fds, *pass_fds))

    def open_shell(self, cwd: str, timeout: float) -> PipeShell:
        """A shell in a fresh sandbox of this layout; bwrap's init leads the shell's process group."""
        assert self.layout is not None, "start() first"
        with self.launcher(None, cwd) as (argv, fds):
            return PipeShell(argv, self.layout.limits, timeout, running=self.running,
                             preexec=self.preexec(self.layout.limits, timeout), pass_fds=fds)

    def abort(self) -> None:
        """Kill every command and shell of this sandbox now, and any started later (another thread's)."""
        self.running.abort()

    def stop(self) -> None:
        self.release()
        self.layout = None
