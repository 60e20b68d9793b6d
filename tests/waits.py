"""Waiting in tests on what happened, never on the clock: a file appearing, a process exiting, a
predicate turning true. No deadline: how long a step takes depends on how loaded the machine is,
so a test that failed at a fixed number of seconds would fail on a busy machine and pass on an idle
one. What ends a wait that never comes is a process's exit (the wait fails then, with its output)
or, for a real hang, the suite's one guard (`timeout` in pyproject.toml's pytest options, hours,
which no working test approaches).

Where a test must tell "slow" from "stuck" inside itself (a search process that never exits), the
bound is derived from work measured in the same test on the same machine (`Stopwatch.bound`), so it
stretches with the load.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

POLL_S = 0.05  # how often a condition is looked at (not how long anything may take)


def until(condition: Callable[[], bool], *, unless: Callable[[], str | None] = lambda: None) -> None:
    """Return once `condition()` is true. `unless()` returns a reason to give up (a process that exited
    before the condition came true), which fails the test with it."""
    while not condition():
        reason = unless()
        if reason is not None:
            raise AssertionError(reason)
        time.sleep(POLL_S)


def exited(proc: subprocess.Popen, what: str, log: Path | None = None) -> Callable[[], str | None]:
    """For `until(..., unless=exited(proc, "R0 was checkpointed", log))`: a reason once `proc` has
    exited, with the end of its output file `log` (a file, not a pipe: a pipe nobody reads while
    waiting fills up and stops the process)."""
    def reason() -> str | None:
        if proc.poll() is None:
            return None
        out = log.read_text(errors="replace")[-3000:] if log and log.is_file() else ""
        return f"the process exited ({proc.returncode}) before {what}:\n{out}"
    return reason


@dataclass
class Stopwatch:
    """Wall seconds of pieces of work done in this test, to bound like work by a generous multiple."""
    seconds: list[float] = field(default_factory=list)

    def time(self, work: Callable[[], object]) -> object:
        started = time.monotonic()
        try:
            return work()
        finally:
            self.seconds.append(time.monotonic() - started)

    def bound(self, factor: float = 10.0) -> float:
        """`factor` times the longest piece measured: a like piece taking longer is stuck, not slow."""
        assert self.seconds, "nothing measured yet"
        return factor * max(self.seconds)


def recorded_sleeps(monkeypatch) -> list[float]:
    """Every delay passed to asyncio.sleep from now on in this test (the sleeps still happen): what a
    client waited between tries, counted without a clock."""
    import asyncio

    asked: list[float] = []
    sleep = asyncio.sleep

    async def recorded(delay, *args, **kw):
        asked.append(delay)
        return await sleep(delay, *args, **kw)

    monkeypatch.setattr(asyncio, "sleep", recorded)
    return asked
