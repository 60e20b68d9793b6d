"""Suite self-checks, run in the sandbox: the oracle solves a feasible task, doing nothing does not,
and a blocked variant is mechanically blocked (its source's oracle fails the variant's literal
demands, or meets them only through a forbidden change, as the variant's `[harnessx.check]` says).
Episodes are independent, so many run at once on a thread pool.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from harnessx.envs.base import AbandonSpec
from harnessx.envs.terminal.env import TerminalEnv, spec_for
from harnessx.tasks import Task


@dataclass
class Outcome:
    task_id: str
    check: str  # oracle | nop | blocked
    ok: bool
    reward: float | None
    forbidden: int
    detail: str
    seconds: float


async def _episode(task: Task, sandbox: str | None, act: bool, literal: bool) -> tuple[float, int, str]:
    env = TerminalEnv(sandbox)
    try:
        await env.reset(task, AbandonSpec(mode="file"))
        last = ""
        for call in task.reference.actions if act else []:
            last = (await env.execute(call)).observation
        if literal:  # the variant's literal demands, whatever its feasibility
            reward, result = env.run_verifier()
            return reward, len(env.forbidden_changes), last[-500:] + (result.stdout + result.stderr)[-1500:]
        reward = await env.verify()
        log = env.ws.mounts["/logs"] / "verifier" / "test-stdout.txt"
        return reward, len(env.forbidden_changes), last[-500:] + (log.read_text()[-1500:] if log.is_file() else "")
    finally:
        await env.cleanup()


def check(task: Task, kind: str, sandbox: str | None = None) -> Outcome:
    """Run one self-check; environment failures come back as a failed outcome with their message."""
    started = time.monotonic()
    try:
        reward, forbidden, detail = asyncio.run(_episode(task, sandbox, act=kind != "nop", literal=kind == "blocked"))
    except Exception as exc:
        return Outcome(task.id, kind, False, None, 0, f"{type(exc).__name__}: {exc}", time.monotonic() - started)
    if kind == "oracle":
        ok = reward == 1.0
    elif kind == "nop":
        ok = reward == 0.0
    else:
        spec_check = spec_for(task).hx.check
        expect = spec_check.expect if spec_check else "fails"
        ok = reward == 0.0 if expect == "fails" else (reward == 1.0 and forbidden > 0)
    return Outcome(task.id, kind, ok, reward, forbidden, detail, time.monotonic() - started)


def start_checks(jobs: Iterable[tuple[Task, str]], sandbox: str | None = None,
                 workers: int = 2) -> dict[tuple[str, str], Future]:
    """Start self-checks on a thread pool; returns futures keyed by (task id, check)."""
    pool = ThreadPoolExecutor(workers, thread_name_prefix="harnessx-check")
    futures = {(task.id, kind): pool.submit(check, task, kind, sandbox) for task, kind in jobs}
    pool.shutdown(wait=False)
    return futures

