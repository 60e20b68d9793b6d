"""Docker backend through the Docker SDK: one container per episode, `network_mode=none`; commands are
execs in it, the agent's shell one long-lived exec (`docker_shell.py`).

The container runs the task's image when it exists locally, else the base image (default
`harnessx/base:local`, built by `.ci/docker.sh`). An image labelled `harnessx.host-mounts=1` is a
skeleton root: the host's system directories and the prepared interpreter are mounted into it
read-only, exactly as the bwrap backend shows them. The root filesystem is read-only, capabilities
are dropped, and memory, CPUs and process count are limited.
"""

from __future__ import annotations

import time

import harnessx.envs.terminal.sandbox.host as host
from harnessx.envs.terminal.sandbox.base import TIMEOUT_EXIT, ExecResult, Layout
from harnessx.errors import EnvironmentFailure

BASE_IMAGE = "harnessx/base:local"
HOST_MOUNTS_LABEL = "harnessx.host-mounts"
NO_ENGINE = ("no Docker engine is reachable ({}): install one (apt-get install -y docker.io) and start it, "
             "e.g. `bash .ci/docker.sh`, or choose sandbox='bwrap'")


def docker_client():
    """A connected Docker SDK client, or a clear EnvironmentFailure."""
    try:
        import docker

        client = docker.from_env(timeout=120)
        client.ping()
    except Exception as exc:  # the SDK raises several types for "no engine"
        raise EnvironmentFailure(NO_ENGINE.format(str(exc)[:200])) from None
    return client


class DockerSandbox:
    name = "docker"
    passes_fds = False

    def __init__(self, image: str = BASE_IMAGE) -> None:
        self.client = docker_client()
        self.base_image = image
        self.container = None
        self.layout: Layout | None = None
        self.aborted = False

    def pick_image(self, wanted: str | None):
        import docker

        for name in (wanted, self.base_image):
            if not name:
                continue
            try:
                return self.client.images.get(name)
            except docker.errors.ImageNotFound:
                continue
        raise EnvironmentFailure(f"docker image {wanted or self.base_image!r} is not available locally and no "
                                 "registry is reachable: build the base image with `bash .ci/docker.sh`")

    def volumes(self, image) -> dict[str, dict[str, str]]:
        assert self.layout is not None
        vols = {str(src): {"bind": target, "mode": "ro" if target in self.layout.readonly else "rw"}
                for target, src in self.layout.mounts.items()}
        if (image.labels or {}).get(HOST_MOUNTS_LABEL) == "1":
            for d in host.system_dirs():
                vols[d] = {"bind": d, "mode": "ro"}
            for source, target in host.interpreter_mounts():
                vols[source] = {"bind": target, "mode": "ro"}
            vols[str(host.toolbin())] = {"bind": host.TOOLBIN, "mode": "ro"}
        return vols

    def refuse_if_aborted(self) -> None:
        if self.aborted:
            raise EnvironmentFailure("docker sandbox: aborted")

    def start(self, layout: Layout) -> None:
        self.refuse_if_aborted()
        self.layout = layout
        image = self.pick_image(layout.image)
        limits = layout.limits
        try:
            self.container = self.client.containers.run(
                image.id, ["sleep", "infinity"], detach=True, network_mode="none", read_only=True,
                volumes=self.volumes(image), working_dir="/app", environment=host.base_env(layout.env),
                mem_limit=f"{limits.memory_mb}m", nano_cpus=int(limits.cpus * 1e9), pids_limit=limits.pids,
                cap_drop=["ALL"], security_opt=["no-new-privileges"], auto_remove=False)
        except Exception as exc:
            raise EnvironmentFailure(f"docker sandbox cannot start: {str(exc)[:300]}") from None

    def run(self, command: str, timeout: float, cwd: str = "/app", pass_fds: tuple[int, ...] = ()) -> ExecResult:
        """`pass_fds` is ignored: an exec in a container inherits no fd of ours (passes_fds False)."""
        assert self.container is not None, "start() first"
        self.refuse_if_aborted()
        started = time.monotonic()
        argv = ["timeout", "-k", "5", str(max(1, int(timeout))), "/bin/bash", "-c", command]
        result = self.container.exec_run(argv, workdir=cwd, demux=True)
        out, err = result.output if result.output else (b"", b"")
        code = result.exit_code
        return ExecResult(code, (out or b"").decode(errors="replace"), (err or b"").decode(errors="replace"),
                          code == TIMEOUT_EXIT, time.monotonic() - started)

    def open_shell(self, cwd: str, timeout: float):
        """The episode's long-lived shell, an exec in this container."""
        assert self.container is not None, "start() first"
        self.refuse_if_aborted()
        from harnessx.envs.terminal.sandbox.docker_shell import DockerShell

        return DockerShell(self.client, self.container, cwd)

    def abort(self) -> None:
        """Kill the container's init, which ends every exec in it (commands and the shell) at once;
        callable from another thread. The container stays until `stop()` removes it."""
        self.aborted = True
        container = self.container
        if container is not None:
            try:
                container.kill()
            except Exception:  # already stopped or removed: nothing runs in it
                pass

    def stop(self) -> None:
        if self.container is not None:
            try:
                self.container.remove(force=True)
            finally:
                self.container = None
        self.layout = None
