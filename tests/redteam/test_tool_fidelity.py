"""A task's declared tools work in the sandbox as in its image, and the hosting check proves it by
running them.

- `/etc`: the sandbox's `/etc` was a fixed allowlist, so a tool whose package ships configuration
  there (`/etc/gnucobol` for `cobc`) failed inside while the host said it was installed. Now every
  world-readable file that the declared packages (and their dependencies) install under `/etc`, by
  dpkg's own file lists, is in the sandbox's `/etc`, byte for byte. Checked for the packages the
  TB2 tasks declare and for a seeded sample of every installed package that ships `/etc` files.
- Hosting: a program of a declared package that does not run inside the sandbox (not found, not
  executable, a loader failure, a crash) makes the task unhostable, the program and why named.
"""

from __future__ import annotations

import hashlib
import os
import random
import shlex
import stat
from pathlib import Path

import pytest

from faults.test_verifier_attacks import agent, attack_task, backends, rollout
from harnessx.envs.terminal import hosting
from harnessx.envs.terminal.env import TerminalEnv
from harnessx.envs.terminal.sandbox import Layout, make_sandbox
from harnessx.envs.terminal.sandbox import dpkg
from harnessx.envs.terminal.sandbox.dpkg import closure, files_of, installed
from harnessx.envs.terminal.sandbox.etc import COPIED, GENERATED, NEVER
from harnessx.envs.terminal.workspace import Workspace

pytestmark = pytest.mark.skipif(not backends() or not installed(), reason="no sandbox, or no dpkg database")
BACKENDS = pytest.mark.parametrize("backend", backends())
TB2_PACKAGES = ("asciinema", "bc", "coreutils", "gcc", "git", "grep", "openssl", "python3", "python3-pip", "rustc",
                "tmux")


def etc_files(packages: tuple[str, ...]) -> dict[str, str]:
    """/etc path -> sha256 of every world-readable regular file the packages' closure installs there."""
    found = {}
    for package in closure(packages):
        for path in files_of(package):
            rel = path[len("/etc/"):] if path.startswith("/etc/") else None
            if rel is None or rel in GENERATED or any(rel.startswith(n) for n in NEVER):
                continue
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_mode & stat.S_IROTH:
                found[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return found


def sampled_packages(n: int = 6) -> list[str]:
    """A seeded sample of the installed packages that ship world-readable files under /etc."""
    owners = sorted(p for p in installed() if any(f.startswith("/etc/") and os.path.isfile(f) for f in files_of(p)))
    return sorted(random.Random(46).sample(owners, min(n, len(owners))))


def run_in(backend: str, packages: tuple[str, ...], command: str, tmp_path: Path):
    ws = Workspace(["/app"], storage_mb=64)
    box = make_sandbox(backend)
    try:
        box.start(Layout(mounts=ws.mounts, packages=packages))
        return box.run(command, 120)
    finally:
        box.stop()
        ws.cleanup()


@BACKENDS
@pytest.mark.parametrize("package", [p for p in TB2_PACKAGES if p in installed()] + sampled_packages())
def test_every_etc_file_a_declared_package_installs_is_in_the_sandbox(tmp_path, backend, package):
    wanted = etc_files((package,))
    if not wanted:
        pytest.skip(f"{package} and its dependencies ship no world-readable file under /etc")
    paths = " ".join(shlex.quote(p) for p in sorted(wanted))
    result = run_in(backend, (package,), f"sha256sum {paths}", tmp_path)
    seen = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in result.stdout.splitlines() if "  " in line}
    missing = sorted(p for p in wanted if seen.get(p) != wanted[p])
    assert not missing, (package, missing[:10], result.stderr[-500:])


@BACKENDS
def test_an_undeclared_package_s_etc_stays_hidden(tmp_path, backend):
    declared = etc_files(("git",))
    only_git = sorted(set(declared) - set(etc_files(("coreutils",))))
    only_git = [p for p in only_git if p.split("/")[2] not in COPIED]
    if not only_git:
        pytest.skip("git ships nothing under /etc beyond the allowlist here")
    result = run_in(backend, ("coreutils",), f"ls {' '.join(map(shlex.quote, only_git))}; cat /etc/shadow", tmp_path)
    assert result.stdout.strip() == "", result.stdout
    assert "No such file" in result.stderr


# --- the hosting check runs what it vouches for -------------------------------------------------------
@pytest.fixture
def fake_dpkg(tmp_path, monkeypatch):
    """A dpkg database with one extra installed package, `hx-fake-tools`, whose file list names a
    program that is not there, one that is, and an /etc file of the host."""
    db = tmp_path / "dpkg"
    (db / "info").mkdir(parents=True)
    status = Path("/var/lib/dpkg/status").read_text(encoding="utf-8", errors="replace").rstrip("\n")
    status += "\n\nPackage: hx-fake-tools\nStatus: install ok installed\nArchitecture: all\nVersion: 1.0\n"
    (db / "status").write_text(status + "\n")
    for info in Path("/var/lib/dpkg/info").glob("*.list"):
        os.symlink(info, db / "info" / info.name)
    (db / "info" / "hx-fake-tools.list").write_text("/usr/bin/hx-no-such-tool\n/usr/bin/true\n")
    monkeypatch.setattr(dpkg, "DPKG", db)
    installed.cache_clear()
    hosting._PROBED.clear()
    yield
    installed.cache_clear()
    hosting._PROBED.clear()


def fake_task(tmp_path: Path) -> Path:
    path = attack_task(tmp_path)
    (path / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n"
                                                     "RUN apt-get update && apt-get install -y hx-fake-tools\n")
    return path


@BACKENDS
def test_a_declared_program_that_does_not_run_in_the_sandbox_makes_the_task_unhostable_naming_it(
        tmp_path, backend, fake_dpkg):
    result, traj = rollout(fake_task(tmp_path), agent("probe", ["echo should not run"]), TerminalEnv(backend))
    assert result.status == "env_failure" and result.reward is None, result
    detail = traj.first("error").data["detail"]
    assert "cannot be hosted here: does not run in the sandbox" in detail, detail
    assert "/usr/bin/hx-no-such-tool: exit 127" in detail and "/usr/bin/true" not in detail, detail


def test_the_probe_counts_usage_errors_as_running_and_exec_failures_crashes_and_loader_errors_not(tmp_path):
    backend = backends()[0]
    ws = Workspace(["/app"], storage_mb=64)
    box = make_sandbox(backend)
    try:
        box.start(Layout(mounts=ws.mounts))
        script = ("printf '#!/bin/sh\\nexit 2\\n' > /tmp/usage; printf '#!/bin/sh\\nkill -SEGV $$\\n' > /tmp/crash; "
                  "printf '#!/bin/sh\\necho \"x: error while loading shared libraries: libhx.so\"; exit 1\\n' > /tmp/lib; "
                  "printf '#!/bin/sh\\necho \"cannot read /etc/hx.conf: No such file or directory\"; exit 1\\n' > /tmp/conf; "
                  "printf 'not a program' > /tmp/noexec; chmod +x /tmp/usage /tmp/crash /tmp/lib /tmp/conf\n")
        progs = ["/tmp/usage", "/tmp/crash", "/tmp/lib", "/tmp/conf", "/tmp/noexec", "/tmp/absent"]
        result = box.run(script + f"set -- {' '.join(progs)}\n{hosting.PROBE}", 120, cwd="/tmp")
    finally:
        box.stop()
        ws.cleanup()
    flagged = {line.split("\t")[0]: line.split("\t")[1] for line in result.stdout.splitlines()}
    assert flagged == {"/tmp/crash": "139", "/tmp/lib": "1", "/tmp/conf": "1", "/tmp/noexec": "126",
                       "/tmp/absent": "127"}, result.stdout
