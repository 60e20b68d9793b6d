"""Blocking sandbox work off the event loop, and stoppable.

A terminal episode's setup, commands and verifier block for seconds to minutes (a Dockerfile step,
an agent's `pytest`, the verifier). Run on the event loop they would stall every other rollout in
flight (their model calls, a queue worker's heartbeat, which a stall longer than the queue's grace
turns into a stale failure). `offload` runs such a step on a thread of its own pool and awaits it.
When the awaiting task is cancelled (Ctrl-C, a search stopping) the step's `abort` kills what the
sandbox runs, and the task waits (up to `ABORT_WAIT` seconds) for the thread to return before the
cancellation goes on, so the episode's cleanup never races the step it interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
ABORT_WAIT = 30.0  # seconds a cancelled step has, after its abort, to return
_POOL = ThreadPoolExecutor(max_workers=64, thread_name_prefix="harnessx-sandbox")  # threads start as needed


async def offload(step: Callable[[], T], abort: Callable[[], None]) -> T:
    """`step()` on a sandbox thread; on cancellation, `abort()` and wait for the thread to return."""
    context = contextvars.copy_context()
    running = asyncio.wrap_future(_POOL.submit(context.run, step))
    running.add_done_callback(_retrieved)  # an aborted step's error, seen by nobody, is not a warning
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        abort()
        with contextlib.suppress(BaseException):  # the step's own result or error no longer matters
            await asyncio.wait_for(asyncio.shield(running), ABORT_WAIT)
        raise


def _retrieved(future: asyncio.Future) -> None:
    if not future.cancelled():
        future.exception()
