"""Keeping the agent away from its verifier.

Before a verifier runs, `end_agent` kills every process of the agent's sandbox (its shell, jobs and
daemons, through the sandbox's control group or, without one, its pid namespace) and checks that
none is left. The verifier then runs in a fresh sandbox (`verifier_mounts`): the task's directories
as the agent left them (nothing of the agent runs any more), the tests copied into a new directory
mounted at `/tests` (the agent's sandbox never had a `/tests`) with each of the task's own files
mounted read-only over itself (tests may build or write beside them, never change them), the judge
plugin read-only,
and a fresh `/tmp` and `/root`. `agent_plants` names files the agent wrote that would steer pytest or
Python if they were honoured (the verifier's pytest ignores them: see verifier.py).
`neutralise_links` removes every link the agent left that points into the verifier's own paths (or
at a directory above them), so nothing reads or writes through it, and flags links that leave the
workspace for anywhere but the read-only system directories. `write_logs` puts the verifier's logs
into a `/logs/verifier` the host makes afresh once no sandbox process is left, never following a link.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
import uuid
from pathlib import Path

from harnessx.envs.terminal import hostio, verifier
from harnessx.envs.terminal.sandbox.host import system_dirs
from harnessx.envs.terminal.sandbox.pipes import PipeShell
from harnessx.envs.terminal.spec import TaskSpec
from harnessx.envs.terminal.workspace import Workspace
from harnessx.errors import EnvironmentFailure

GONE_WAIT = 10.0  # seconds for killed processes to disappear
PLANTS = ("conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "sitecustomize.py",
          "usercustomize.py", "pytest.py", "_pytest")
PRIVATE = ("/tmp", "/root")  # fresh for the verifier unless the task keeps its work there
FILE_MOUNTS = 1000  # test files bound read-only one by one; a larger tests dir is mounted read-only whole
PROTECTED = ("/tests", "/run", "/logs/verifier", "/proc")  # the verifier's own paths; /proc reaches every root


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def end_agent(shell, box) -> list[str]:
    """Kill the agent's shell and every process of its sandbox; notes for the trajectory. Raises an
    EnvironmentFailure when a process survives (the verifier must not run beside it)."""
    proc = getattr(shell, "proc", None) if shell is not None else None
    inner = proc.inner_processes() if isinstance(proc, PipeShell) else []
    if shell is not None:
        shell.close()  # SIGKILL to the shell's group and launcher: its pid namespace goes with it
    killed, survivors = box.kill_all() if hasattr(box, "kill_all") else (0, [])
    deadline = time.monotonic() + GONE_WAIT
    while any(_alive(p) for p in inner) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = sorted(set(survivors) | {p for p in inner if _alive(p)})
    if left:
        raise EnvironmentFailure(f"agent processes survived the kill before verification: pids {left[:10]}")
    count = max(len(inner), killed)
    return [f"agent processes killed before verification: {count}"] if count else []


def agent_plants(authors: dict[str, str]) -> list[str]:
    """Sandbox paths the agent wrote whose name pytest or Python would act on (conftest.py, ini
    files, sitecustomize, a module shadowing pytest, a .pth file)."""
    found = []
    for path, author in sorted(authors.items()):
        parts = path.split("/")
        if author == "agent" and (any(p in PLANTS for p in parts) or path.endswith(".pth")):
            found.append(path)
    return found


def verifier_mounts(spec: TaskSpec, ws: Workspace) -> tuple[dict[str, Path], frozenset[str], Path]:
    """The verifier's mounts, those mounted read-only, and the directory to remove afterwards. The
    tests and the judge go into a new directory of the workspace's base, which no agent sandbox ever
    mounted."""
    base = ws.base / f"verifier-{uuid.uuid4().hex[:12]}"
    tests = base / "tests"
    tests.mkdir(parents=True)
    if spec.test_dir.is_dir():
        shutil.copytree(spec.test_dir, tests, dirs_exist_ok=True, symlinks=False)
    keep = set(spec.roots())
    mounts = {root: host for root, host in ws.mounts.items() if root != "/tests" and (root not in PRIVATE or root in keep)}
    mounts["/tests"] = tests
    for root in PRIVATE:
        if root not in mounts:
            (base / root.strip("/")).mkdir()
            mounts[root] = base / root.strip("/")
    mounts.update(verifier.judge_files(base))
    for path in [tests, *tests.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)  # the sandbox's root has no DAC override
    files = sorted(p for p in tests.rglob("*") if p.is_file() and not p.is_symlink())
    readonly = {verifier.JUDGE}
    if len(files) > FILE_MOUNTS:
        readonly.add("/tests")
    for path in files if len(files) <= FILE_MOUNTS else []:
        target = f"/tests/{path.relative_to(tests)}"
        mounts[target] = path
        readonly.add(target)
    fresh_logs(ws)
    return mounts, frozenset(readonly), base


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def neutralise_links(ws: Workspace) -> list[str]:
    """Remove links into the verifier's paths (or at a directory above one), flag links that leave
    the workspace, move directories deeper than hostio.MAX_DEPTH (which no walk of the host enters)
    out of the verifier's view; notes for the trajectory. Call once no agent process is left."""
    notes = []
    for root, host in sorted(ws.mounts.items()):
        for rel, state in list(hostio.walk_states(host, 0)):
            path = f"{root}/{rel}"
            if state[0] == "deep":
                quarantine = ws.base / "quarantine" / uuid.uuid4().hex
                quarantine.parent.mkdir(exist_ok=True)
                with hostio.parent_dir(host, rel) as (dir_fd, name):
                    os.rename(name, quarantine, src_dir_fd=dir_fd)
                notes.append(f"agent-made directory {path} ({hostio.MAX_DEPTH}+ levels deep) moved out before verification")
                continue
            if state[0] != "link":
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(path), state[2]))
            if any(_under(target, p) or _under(p, target) for p in PROTECTED):
                with hostio.parent_dir(host, rel) as (dir_fd, name):
                    os.unlink(name, dir_fd=dir_fd)
                notes.append(f"agent-made link {path} -> {state[2]} removed before verification")
            elif not any(_under(target, r) for r in ws.mounts) and not any(_under(target, d) for d in system_dirs()):
                notes.append(f"agent-made link {path} -> {state[2]} leaves the workspace")
    return notes


def fresh_logs(ws: Workspace) -> Path:
    """`/logs/verifier` emptied and recreated by the host: whatever the agent put there (a planted
    reward file, a link to a host path) is gone before the verifier's logs are written."""
    logs = ws.mounts["/logs"] / "verifier"
    try:
        mode = os.lstat(logs).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):  # moved aside whole: a tree of any depth costs one rename
        (ws.base / "quarantine").mkdir(exist_ok=True)
        logs.rename(ws.base / "quarantine" / uuid.uuid4().hex)
    elif mode is not None:  # a file, a link, a FIFO...
        logs.unlink()
    logs.mkdir()
    os.chmod(logs, 0o755)
    return logs


def write_logs(ws: Workspace, files: dict[str, str]) -> None:
    """The verifier's logs, into a `/logs/verifier` made afresh (call once no sandbox process is
    left: nothing can swap a path between the host's steps), each file created new, no link followed."""
    logs = fresh_logs(ws)
    for name, text in files.items():
        hostio.write_new(logs, name, text.encode("utf-8", errors="replace"))
