"""Sandbox escapes must fail: network access (a server on the host's loopback), writes outside the
workspace, reading the host's project tree, keeping capabilities; limits must hold; a missing
sandbox is a clear error, never an unsandboxed run."""

from __future__ import annotations

import shutil
import signal
import socket
import threading
from pathlib import Path

import pytest
from conftest import require

from harnessx.envs.terminal.sandbox import Layout, Limits, make_sandbox
from harnessx.errors import EnvironmentFailure, InputError

REPO = Path(__file__).resolve().parent.parent


def available() -> list[str]:
    names = []
    if shutil.which("bwrap"):
        names.append("bwrap")
    try:
        make_sandbox("unshare")
        names.append("unshare")
    except EnvironmentFailure:
        pass
    return names


def docker_or_skip():
    """A docker sandbox, or a skip when no engine or no base image (`bash .ci/docker.sh` makes both);
    a failure instead under HARNESSX_REQUIRE_DOCKER=1."""
    require("docker")
    sandbox = make_sandbox("docker")
    sandbox.pick_image(None)
    return sandbox


def layout(tmp_path: Path, **limits) -> Layout:
    mounts = {}
    for root in ("/app", "/tests", "/logs", "/tmp", "/root"):
        host = tmp_path / "ws" / root.strip("/")
        host.mkdir(parents=True)
        mounts[root] = host
    return Layout(mounts=mounts, limits=Limits(**limits))


@pytest.fixture(params=available() or [pytest.param("none", marks=pytest.mark.skip("no sandbox installed"))])
def box(request, tmp_path):
    sandbox = make_sandbox(request.param)
    sandbox.start(layout(tmp_path))
    yield sandbox
    sandbox.stop()


@pytest.fixture
def host_server():
    """A TCP server on the host's loopback that records whether anything connected."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(5)
    hits = []

    def serve():
        try:
            conn, _ = server.accept()
            hits.append(True)
            conn.close()
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], hits
    server.close()


def assert_escapes_fail(sandbox, tmp_path: Path, port: int, hits: list) -> None:
    probe = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)\""
    net = sandbox.run(probe, 30)
    assert net.exit_code != 0 and not hits, "the sandbox reached a server on the host's loopback"
    assert "lo:" in sandbox.run("cat /proc/net/dev", 30).stdout
    assert len(sandbox.run("tail -n +3 /proc/net/dev", 30).stdout.strip().splitlines()) == 1  # loopback only
    outside = tmp_path / "outside.txt"
    for target in ("/etc/hx-escape", "/usr/hx-escape", "/hx-escape", "/opt/hx-escape", str(outside)):
        result = sandbox.run(f"echo x > {target}", 30)
        assert result.exit_code != 0, f"wrote {target}"
    assert not outside.exists()
    assert sandbox.run(f"test -e {REPO}", 30).exit_code != 0, "the host's project tree is visible"
    assert sandbox.run("echo ok > /app/inside.txt && cat /app/inside.txt", 30).stdout.strip() == "ok"


def test_escapes_fail(box, tmp_path, host_server):
    port, hits = host_server
    assert_escapes_fail(box, tmp_path, port, hits)
    assert (tmp_path / "ws" / "app" / "inside.txt").read_text() == "ok\n"


def test_capabilities_are_dropped(box):
    caps = box.run("grep CapEff /proc/self/status", 30).stdout
    assert caps.split()[-1] == "0000000000000000"


@pytest.fixture
def launched_ignoring_interrupts():
    """The test process ignores SIGINT and SIGQUIT, as a job started with `cmd &` from a script
    does; restored afterwards."""
    saved = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGQUIT)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def test_what_runs_in_the_sandbox_never_inherits_ignored_interrupts(box, launched_ignoring_interrupts):
    """A verifier or task command whose behaviour relies on SIGINT must see the default disposition
    however harnessx was started, or a correct solution scores 0."""
    ignored = box.run("grep SigIgn /proc/self/status", 30).stdout.split()[-1]
    assert int(ignored, 16) & (1 << (signal.SIGINT - 1) | 1 << (signal.SIGQUIT - 1)) == 0, ignored


def test_time_limit_kills_the_command(box):
    result = box.run("sleep 30; echo late", 1)
    assert result.timed_out and result.exit_code == 124 and "late" not in result.stdout
    assert result.duration_s < 30  # killed: the sleep did not run its 30 s


def test_memory_limit_holds(tmp_path):
    for name in available():
        sandbox = make_sandbox(name)
        sandbox.start(layout(tmp_path / name, memory_mb=256))
        result = sandbox.run("python3 -c \"b = bytearray(1024 * 1024 * 1024); print('allocated')\"", 60)
        sandbox.stop()
        assert result.exit_code != 0 and "allocated" not in result.stdout


def test_missing_bwrap_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(EnvironmentFailure, match="apt-get install -y bubblewrap"):
        make_sandbox("bwrap")


def test_unknown_sandbox_is_an_input_error():
    with pytest.raises(InputError, match="bwrap, unshare, docker"):
        make_sandbox("chroot")


@pytest.mark.docker
def test_docker_sandbox_escapes_fail(tmp_path, host_server):
    sandbox = docker_or_skip()
    sandbox.start(layout(tmp_path))
    try:
        port, hits = host_server
        assert_escapes_fail(sandbox, tmp_path, port, hits)
        result = sandbox.run("sleep 30", 2)
        assert result.timed_out
    finally:
        sandbox.stop()
