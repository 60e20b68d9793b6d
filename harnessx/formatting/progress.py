"""The one progress display of a long command (search, eval, compare, probes, benchmark evals).

It shows the round, rollouts done/total, the ETA and the cost so far. On a terminal it is a rich
bar, with lines (accepted moves, notes) printed above it; when the console is not a terminal (a
pipe, a log file, CI) it prints plain lines instead: one when a round starts, one each `every` of
the rollouts, one at least each `heartbeat` seconds while rollouts finish, and one at the end, so a
long command is never silent for minutes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@dataclass(frozen=True)
class ProgressConfig:
    label: str                      # the command: "search", "compare: rollouts"
    every: float = 0.1              # non-terminal: a line each tenth of the rollouts
    heartbeat: float = 60.0         # non-terminal: and at least once a minute while rollouts finish
    transient: bool = False         # terminal: the bar disappears at the end
    live: bool | None = None        # None: a bar when the console is a terminal


def clock_text(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class RunProgress:
    """Rollouts done out of the planned total, their ETA and cost, and the round; a context manager."""

    def __init__(self, config: ProgressConfig, console: Console, clock: Callable[[], float] = time.monotonic):
        self.config, self.console, self.clock = config, console, clock
        self.live = console.is_terminal if config.live is None else config.live
        self.total: int | None = None
        self.round_no: int | None = None
        self.done = 0
        self.cost = 0.0
        self._start = clock()
        self._start_done = 0        # rollouts already done (cached, resumed) when the clock started
        self._last_line = self._start
        self._last_step = 0         # the `every` step of the last plain line
        self._bar: Progress | None = None
        self._task = None

    # --- what the command reports --------------------------------------------------------------
    def plan(self, total: int, done: int | None = None) -> None:
        """The planned total (it may change: racing stops losers early); `done` resets the count."""
        self.total = total
        if done is not None:
            if self.done == 0 and done:
                self._start, self._start_done = self.clock(), done
            self.done = done
        self._refresh()

    def round(self, round_no: int) -> None:
        self.round_no = round_no
        self._refresh()
        if not self.live:
            self._plain(started=True)

    def advance(self, spent: float | None = None) -> None:
        """One rollout finished; `spent` is the cost so far, when the command tracks it."""
        self.done += 1
        if spent is not None:
            self.cost = spent
        self._refresh()
        if not self.live:
            step = int(self.done / self.total / self.config.every) if self.total else 0
            if step > self._last_step or self.clock() - self._last_line >= self.config.heartbeat:
                self._last_step = step
                self._plain()

    def line(self, text: str, style: str | None = None) -> None:
        """A line above the bar (an accepted move, a note); a plain line without a terminal."""
        self.console.print(text, style=style, markup=False, highlight=False)

    # --- the display ---------------------------------------------------------------------------
    def eta(self) -> str:
        paid = self.done - self._start_done
        if not self.total or paid <= 0:
            return "?"
        left = max(self.total - self.done, 0)
        return clock_text((self.clock() - self._start) / paid * left)

    def status(self, started: bool = False, done: bool = False) -> str:
        where = f"round {self.round_no}{' started' if started else ''}, " if self.round_no is not None else ""
        count = f"{self.done}/{self.total}" if self.total is not None else f"{self.done}"
        when = (f" in {clock_text(self.clock() - self._start)}" if done else
                f", ETA {self.eta()}" if self.total is not None else "")
        return f"{where}{count} rollouts{when}, cost ${self.cost:.4f}"

    def _plain(self, started: bool = False, done: bool = False) -> None:
        self._last_line = self.clock()
        self.line(f"{self.config.label}: " + ("done: " if done else "") + self.status(started, done))

    def _refresh(self) -> None:
        if self._bar is not None:
            where = f"round {self.round_no}" if self.round_no is not None else ""
            self._bar.update(self._task, total=self.total, completed=self.done, round=where, eta=self.eta(),
                             cost=self.cost)

    def __enter__(self) -> "RunProgress":
        if self.live:
            self._bar = Progress(TextColumn(f"[bold]{self.config.label}[/] {{task.fields[round]}}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("rollouts  ETA {task.fields[eta]}  "
                                                                  "${task.fields[cost]:.4f}"),
                                 TimeElapsedColumn(), console=self.console, transient=self.config.transient)
            self._task = self._bar.add_task(self.config.label, total=self.total, round="", eta="?", cost=0.0)
            self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None
        elif exc[0] is None:
            self._plain(done=True)
