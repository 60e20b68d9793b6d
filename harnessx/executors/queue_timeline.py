"""What a rollout queue's workers did over time, read back from the queue study itself.

Every answered rollout is one trial with three times: `enqueued` (user attribute, written by the
search), claimed (Optuna's `datetime_start`, set when a worker wins WAITING -> RUNNING) and finished
(`datetime_complete`), plus the claiming worker (system attribute `worker`). From those spans:

- per worker: rollouts answered, busy seconds, share of the run it was busy;
- slot-seconds of the run split three ways: busy, *starved* (a slot idle while a rollout waited in
  the queue: claim latency, the workers' poll interval) and *empty* (a slot idle with nothing
  queued: the search had not handed out more, e.g. its stage barriers or its own poll interval);
- queue depth (waiting, running) over time, in a few buckets.

A scaling problem shows up here as its cause: a worker missing from the table (it died or never
joined), a large starved share (dispatch latency), or a large empty share (the search serialises).
Times are wall-clock seconds of the machines involved (one clock on one machine).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from optuna.trial import FrozenTrial, TrialState


@dataclass(frozen=True)
class Span:
    worker: str
    enqueued: float
    claimed: float
    finished: float


@dataclass(frozen=True)
class WorkerLine:
    worker: str
    rollouts: int
    busy_s: float
    share: float  # busy seconds / the run's span


@dataclass(frozen=True)
class Timeline:
    span_s: float                 # first enqueue to last answer
    slots: int
    workers: list[WorkerLine]
    busy_s: float                 # slot-seconds running a rollout
    starved_s: float              # slot-seconds idle while a rollout waited
    empty_s: float                # slot-seconds idle with nothing queued
    max_waiting: int
    buckets: list[tuple[float, float, float]]  # (start s, mean waiting, mean running) per bucket


def spans(trials: Iterable[FrozenTrial]) -> list[Span]:
    """The answered rollouts' spans (failed or unanswered attempts are left out)."""
    out = []
    for t in trials:
        if t.state != TrialState.COMPLETE or t.datetime_start is None or t.datetime_complete is None:
            continue
        claimed, finished = t.datetime_start.timestamp(), t.datetime_complete.timestamp()
        enqueued = float(t.user_attrs.get("enqueued", claimed))
        out.append(Span(str(t.system_attrs.get("worker", "?")), min(enqueued, claimed), claimed, finished))
    return sorted(out, key=lambda s: s.enqueued)


def _segments(items: list[Span]) -> list[tuple[float, float, int, int]]:
    """(start, end, waiting, running) for each stretch between two events."""
    deltas: dict[float, list[int]] = {}
    for s in items:
        for t, dw, dr in ((s.enqueued, 1, 0), (s.claimed, -1, 1), (s.finished, 0, -1)):
            d = deltas.setdefault(t, [0, 0])
            d[0], d[1] = d[0] + dw, d[1] + dr
    times = sorted(deltas)
    out, waiting, running = [], 0, 0
    for a, b in zip(times, times[1:]):
        waiting, running = waiting + deltas[a][0], running + deltas[a][1]
        out.append((a, b, waiting, running))
    return out


def timeline(items: list[Span], slots: int | None = None, n_buckets: int = 10) -> Timeline:
    """`slots`: rollouts the workers could run at once (default: one per worker seen)."""
    if not items:
        return Timeline(0.0, slots or 0, [], 0.0, 0.0, 0.0, 0, [])
    t0, t1 = min(s.enqueued for s in items), max(s.finished for s in items)
    span = t1 - t0
    names = sorted({s.worker for s in items})
    slots = slots or len(names)
    lines = []
    for name in names:
        mine = [s for s in items if s.worker == name]
        busy = sum(s.finished - s.claimed for s in mine)
        lines.append(WorkerLine(name, len(mine), busy, busy / span if span else 0.0))
    busy = starved = empty = 0.0
    max_waiting = 0
    segments = _segments(items)
    for a, b, waiting, running in segments:
        d, idle = b - a, max(slots - running, 0)
        busy += d * min(running, slots)
        starved += d * min(idle, waiting)
        empty += d * (idle - min(idle, waiting))
        max_waiting = max(max_waiting, waiting)
    width = span / n_buckets if span else 1.0
    buckets = []
    for i in range(n_buckets if span else 0):
        lo, hi = t0 + i * width, t0 + (i + 1) * width
        w = r = 0.0
        for a, b, waiting, running in segments:
            overlap = max(0.0, min(b, hi) - max(a, lo))
            w, r = w + overlap * waiting, r + overlap * running
        buckets.append((i * width, w / width, r / width))
    return Timeline(span, slots, lines, busy, starved, empty, max_waiting, buckets)


def render(tl: Timeline) -> str:
    total = tl.slots * tl.span_s or 1.0
    rows = [f"queue timeline: {sum(w.rollouts for w in tl.workers)} answered rollouts over {tl.span_s:.1f}s, "
            f"{tl.slots} slot(s); slot-seconds busy {tl.busy_s:.1f} ({tl.busy_s / total:.0%}), starved "
            f"{tl.starved_s:.1f} ({tl.starved_s / total:.0%}: idle while a rollout waited), empty "
            f"{tl.empty_s:.1f} ({tl.empty_s / total:.0%}: idle, nothing queued); at most {tl.max_waiting} waiting"]
    rows += [f"  worker {w.worker:24} {w.rollouts:4d} rollouts  busy {w.busy_s:6.1f}s ({w.share:.0%} of the run)"
             for w in tl.workers]
    if tl.buckets:
        rows.append("  depth over time (waiting/running): " + "  ".join(
            f"{start:.0f}s {w:.1f}/{r:.1f}" for start, w, r in tl.buckets))
    return "\n".join(rows)
