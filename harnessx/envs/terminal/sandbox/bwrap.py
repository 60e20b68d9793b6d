"""bubblewrap backend: one `bwrap` process per command, or one long-lived shell (`open_shell`).

Fresh namespaces (pid, ipc, uts, net: loopback only), all capabilities dropped, an empty root made
read-only after the host's system directories and a minimal `/etc` are bound read-only and the
workspace read-write; every process joins the sandbox's control group when there is one.
"""

from __future__ import annotations

import shutil

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

    def argv(self, command: str | None, cwd: str) -> list[str]:
        """The launcher for one command, or (command None) for a shell reading commands on stdin."""
        assert self.layout is not None, "start() first"
        args = [self.binary, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--hostname", "sandbox"]
        for d in host.system_dirs():
            args += ["--ro-bind", d, d]
        args += ["--ro-bind", str(etc_dir()), "/etc"]
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
        shell = ["/bin/bash", "--noprofile", "--norc"]
        return args + ["--"] + (shell if command is None else ["/bin/bash", "-c", command])

    def run(self, command: str, timeout: float, cwd: str = "/app", pass_fds: tuple[int, ...] = ()) -> ExecResult:
        assert self.layout is not None, "start() first"
        return run_process(self.argv(command, cwd), timeout, self.layout.limits, running=self.running,
                           preexec=self.preexec(self.layout.limits, timeout), pass_fds=pass_fds)

    def open_shell(self, cwd: str, timeout: float) -> PipeShell:
        """A shell in a fresh sandbox of this layout; bwrap's init leads the shell's process group."""
        assert self.layout is not None, "start() first"
        return PipeShell(self.argv(None, cwd), self.layout.limits, timeout, running=self.running,
                         preexec=self.preexec(self.layout.limits, timeout))

    def abort(self) -> None:
        """Kill every command and shell of this sandbox now, and any started later (another thread's)."""
        self.running.abort()

    def stop(self) -> None:
        self.release()
        self.layout = None
