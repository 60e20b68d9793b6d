"""Keep LiteLLM's logging worker inside one event loop.

LiteLLM queues its (here unused) success-logging coroutines on a global worker bound to one event
loop; when HarnessX evaluates in several loops (GEPA's adapter runs its own, in a thread) the worker
carries queued coroutines into the new loop, re-awaits them and prints RuntimeError tracebacks
("cannot reuse already awaited coroutine"). Draining the worker before a loop ends carries nothing.
"""

from __future__ import annotations


async def flush_logging() -> None:
    """Let LiteLLM's logging worker finish what this event loop queued."""
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    await GLOBAL_LOGGING_WORKER.flush()


async def drained(coroutine):
    """Await `coroutine`, then let LiteLLM's logging worker finish what that loop queued, so nothing is
    carried into the next event loop (where LiteLLM would re-await it and raise)."""
    try:
        return await coroutine
    finally:
        await flush_logging()
