"""The workspace's disk limit is real and not RAM. A workspace used to be a tmpfs of the task's
storage (10 GB by default): its pages were memory, so what the agent wrote was charged to the
episode's memory (a 10 GB default beyond any memory limit), and a large write ended as a memory
kill, not as a full disk. Now it is a file system of that size on the host's disk: a write past it
fails inside the sandbox with ENOSPC, the limit is reported in the shape the episode's limits use
(`disk limit (N MB)` from `Workspace.exceeded`, which the environment turns into the rollout's
verdict), and writing more than the memory limit into the workspace is no memory event at all.
(The host-path scan of `/proc/self`, `/proc/1`, the environment and error messages is
`tests/faults/test_verifier_attacks.py::test_no_sandbox_visible_file_names_the_host_checkout_or_workspace`.)"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from faults.test_verifier_attacks import agent, attack_task, backends, outputs, rollout
from harnessx.envs.terminal import workspace
from harnessx.envs.terminal.env import TerminalEnv

pytestmark = [pytest.mark.skipif(not backends(), reason="no sandbox"),
              pytest.mark.skipif(os.geteuid() != 0, reason="the disk-backed workspace needs root (mount)")]
BACKENDS = pytest.mark.parametrize("backend", backends())


class LimitEnv(TerminalEnv):
    """Records, when the episode is cleaned up, the workspace's limit verdict and where it lived."""

    exceeded: list[str] | None = None
    fstype: str | None = None

    async def cleanup(self) -> None:
        if self.ws is not None and self.exceeded is None:
            self.exceeded = self.ws.exceeded()
            mounts = [line.split() for line in open("/proc/self/mounts", encoding="utf-8")]
            self.fstype = next((m[2] for m in mounts if m[1] == str(self.ws.base)), None)
        await super().cleanup()


@BACKENDS
def test_a_write_past_the_disk_limit_fails_inside_with_no_space_and_names_the_limit(tmp_path, backend):
    probe = ("head -c 100M /dev/zero > /app/big; echo status=$?; stat -f -c 'fs=%T' /app; "
             "du -sm /app | cut -f1 | sed 's/^/used=/'; rm -f /app/big")  # seen, then freed: the output is kept
    fill = "head -c 100M /dev/zero > /app/big"  # left full: the episode's limit check sees it
    env = LimitEnv(backend)
    _, traj = rollout(attack_task(tmp_path, environment='storage = "64M"\n'), agent("enospc", [probe, fill]), env)
    seen = outputs(traj)
    assert "No space left on device" in seen and "status=1" in seen, seen
    assert "fs=tmpfs" not in seen, seen
    used = int(seen.split("used=")[1].split()[0])
    assert used <= 64, seen
    assert env.exceeded == ["disk limit (64 MB)"], env.exceeded
    assert env.fstype == "ext4", env.fstype


@pytest.mark.slow
@BACKENDS
def test_writing_more_than_the_memory_limit_into_the_workspace_is_no_memory_event(tmp_path, backend):
    write = ("dd if=/dev/zero of=/app/big bs=1M count=320 status=none; echo status=$?; "
             "stat -c 'size=%s' /app/big; stat -f -c 'fs=%T' /app")
    task = attack_task(tmp_path, environment='memory_mb = 200\nstorage = "1G"\n')
    env = LimitEnv(backend)
    result, traj = rollout(task, agent("ram", [write], timeout=120), env)
    seen = outputs(traj)
    assert "status=0" in seen and f"size={320 * 2**20}" in seen and "fs=tmpfs" not in seen, seen
    assert result.status == "ok" and result.reward == 0.0, (result, seen)  # no limit reached: a plain failure
    assert env.exceeded == [] and env.fstype == "ext4", (env.exceeded, env.fstype)


@BACKENDS
def test_the_default_workspace_is_on_disk_with_the_task_storage(tmp_path, backend):
    look = "stat -f -c 'fs=%T blocks=%b bsize=%S' /app"
    env = LimitEnv(backend)
    _, traj = rollout(attack_task(tmp_path), agent("default", [look]), env)
    seen = outputs(traj)
    fields = dict(w.split("=") for w in seen.split() if "=" in w and w.split("=")[0] in ("fs", "blocks", "bsize"))
    assert fields["fs"] != "tmpfs", seen
    size_mb = int(fields["blocks"]) * int(fields["bsize"]) / 2**20
    assert 9 * 1024 < size_mb <= 10240, seen  # TB2's default storage, 10 GB (less the file system's own)
    assert env.fstype == "ext4"


def test_a_tmpfs_temporary_directory_does_not_put_the_workspace_in_memory(monkeypatch):
    types = {tempfile.gettempdir(): "tmpfs", "/var/tmp": "ext2/ext3"}
    monkeypatch.setattr(workspace, "fs_type", lambda path: types.get(path, ""))
    workspace.disk_dir.cache_clear()
    try:
        ws = workspace.Workspace(["/app"], storage_mb=64)
        try:
            assert ws.home.parent == Path("/var/tmp") and ws.mounted, ws.home
        finally:
            ws.cleanup()
        types["/var/tmp"] = "tmpfs"  # nowhere better: the temporary directory, as before
        workspace.disk_dir.cache_clear()
        assert workspace.disk_dir() is None
    finally:
        workspace.disk_dir.cache_clear()
