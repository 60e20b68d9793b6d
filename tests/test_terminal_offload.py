"""The terminal environment keeps the event loop free and stops when cancelled: a running agent
command, setup step or verifier lets other coroutines run meanwhile; a cancelled one is killed in
the sandbox (no process of it is left) instead of running to its timeout; `Running.abort` kills
what runs now and anything started after it."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import subprocess
import threading
import time

import pytest
from conftest import require

from harnessx.envs.base import AbandonSpec
from harnessx.envs.terminal.env import TerminalEnv
from harnessx.envs.terminal.loader import load_spec, to_task
from harnessx.envs.terminal.offload import offload
from harnessx.envs.terminal.sandbox.base import Running, kill_launcher
from test_terminal_env import bash, make_task
from test_terminal_sandbox import docker_or_skip

pytestmark = pytest.mark.requires("sandbox")

SLOW_TEST = ("import time\nfrom pathlib import Path\n\ndef test_answer():\n    time.sleep(1.5)\n"
             "    assert Path('/app/answer.txt').read_text().strip() == '42'\n")


def processes_running(marker: str) -> list[str]:
    """Command lines of this machine's processes that contain `marker` (a unique sleep duration)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                line = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in line and "pytest" not in line:
            found.append(line)
    return found


async def ticks_while(coro) -> tuple[object, int]:
    """Run `coro` while a ticker counts 20 ms sleeps; a blocked event loop would count none."""
    count = 0

    async def ticker():
        nonlocal count
        while True:
            await asyncio.sleep(0.02)
            count += 1

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    before = count
    try:
        return await coro, count - before
    finally:
        tick.cancel()


async def cancel_once_running(coro, marker: str) -> tuple[float, list[str]]:
    """Start `coro`, cancel it once a process with `marker` runs; seconds the cancellation took, and
    the processes with `marker` still there after it."""
    step = asyncio.create_task(coro)
    while not processes_running(marker):
        await asyncio.sleep(0.05)
    started = time.monotonic()
    step.cancel()
    with pytest.raises(asyncio.CancelledError):
        await step
    return time.monotonic() - started, processes_running(marker)


def test_commands_and_the_verifier_leave_the_event_loop_free(tmp_path):
    task_dir = make_task(tmp_path)
    (task_dir / "tests" / "test_outputs.py").write_text(SLOW_TEST)
    task = to_task(load_spec(task_dir))

    async def episode():
        env = TerminalEnv()
        try:
            await env.reset(task, AbandonSpec(mode="file"))
            _, free_ticks = await ticks_while(asyncio.sleep(1.5))  # a free loop, on this machine, now
            out, command_ticks = await ticks_while(env.execute(bash("sleep 1.5; echo 42 > answer.txt")))
            reward, verify_ticks = await ticks_while(env.verify())
            return out, free_ticks, command_ticks, reward, verify_ticks
        finally:
            await env.cleanup()

    out, free_ticks, command_ticks, reward, verify_ticks = asyncio.run(episode())
    assert not out.error and reward == 1.0
    # 1.5 s of sleeping in the sandbox each (plus the sandbox's own work): as many 20 ms ticks as 1.5 s of
    # a free loop gives on this machine (tens when idle, fewer under load), at most 1 if the loop is blocked
    assert free_ticks >= 4 and min(command_ticks, verify_ticks) >= free_ticks / 2, (free_ticks, command_ticks,
                                                                                     verify_ticks)


@pytest.mark.parametrize("sandbox", ["bwrap", "unshare", pytest.param("docker", marks=pytest.mark.docker)])
def test_a_cancelled_command_is_killed_in_the_sandbox(tmp_path, sandbox):
    if sandbox == "docker":
        docker_or_skip()
    elif sandbox == "bwrap":
        require("bwrap")
    elif not shutil.which(sandbox) or os.geteuid() != 0:
        pytest.skip(f"no {sandbox} here (it runs as root only)")
    task = to_task(load_spec(make_task(tmp_path)))
    env = TerminalEnv(sandbox)

    async def episode():
        await env.reset(task, AbandonSpec(mode="file"))
        stopped, left = await cancel_once_running(env.execute(bash("sleep 97.531")), "97.531")
        await env.cleanup()
        return stopped, left

    stopped, left = asyncio.run(episode())
    assert stopped < 97.531 / 2 and left == [], (stopped, left)  # not the command's 97 s, and nothing left behind


def test_a_cancelled_setup_step_is_killed_and_setup_goes_no_further(tmp_path):
    task_dir = make_task(tmp_path)
    (task_dir / "environment" / "Dockerfile").write_text("FROM python:3.13-slim-bookworm\nWORKDIR /app\n"
                                                         "RUN sleep 86.421\nRUN echo after > /app/after.txt\n")
    task = to_task(load_spec(task_dir))
    env = TerminalEnv()

    async def episode():
        stopped, left = await cancel_once_running(env.reset(task, AbandonSpec(mode="file")), "86.421")
        after = (env.ws.mounts["/app"] / "after.txt").exists() if env.ws else False
        await env.cleanup()
        return stopped, after, left

    stopped, after, left = asyncio.run(episode())
    assert stopped < 86.421 / 2 and not after and left == [], (stopped, after, left)  # not the step's 86 s


def test_running_aborts_what_runs_and_what_starts_after():
    running = Running()
    first = subprocess.Popen(["sleep", "75.309"], start_new_session=True)
    running.add(kill_launcher(first))
    running.abort()
    assert first.wait() == -9  # killed, not its 75 s out: a plain exit would be 0
    second = subprocess.Popen(["sleep", "75.309"], start_new_session=True)
    running.add(kill_launcher(second))  # added after the abort: killed at once
    assert second.wait() == -9


def test_a_step_that_fails_after_its_wait_was_given_up_logs_nothing(caplog, monkeypatch):
    # a second cancellation ends the wait for an aborted step; the step's error, when it comes, is
    # nobody's concern and must not surface as asyncio's "exception was never retrieved"
    from harnessx.envs.terminal import offload as offload_mod

    release, settled = threading.Event(), threading.Event()
    retrieved = offload_mod._retrieved

    def settle(future):  # the step's end reaching the loop (its error delivered, or dropped): then look
        retrieved(future)
        settled.set()

    monkeypatch.setattr(offload_mod, "_retrieved", settle)

    def step():
        release.wait()
        raise RuntimeError("the aborted step failed late")

    async def main():
        waiting = asyncio.create_task(offload(step, abort=lambda: None))
        await asyncio.sleep(0)  # the step is submitted
        waiting.cancel()
        await asyncio.sleep(0)  # its abort is under way
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        release.set()
        while not settled.is_set():
            await asyncio.sleep(0.01)

    asyncio.run(main())
    gc.collect()
    assert settled.is_set() and "never retrieved" not in caplog.text
