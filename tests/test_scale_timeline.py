"""The queue timeline (what the workers did, read back from the queue's trials) on a hand-computed
case: three rollouts, two slots, one rollout that waited while a slot was idle (starved) and one
stretch with a slot idle and nothing queued (empty)."""

from __future__ import annotations

from datetime import datetime

import pytest
from optuna.trial import FrozenTrial, TrialState

from harnessx.executors.queue_timeline import Span, render, spans, timeline

T0 = 1_800_000_000.0  # an epoch second; the trials' datetimes are local wall-clock, as Optuna writes them


def _trial(number, state, worker, enqueued, claimed, finished):
    when = datetime.fromtimestamp
    return FrozenTrial(number=number, state=state, value=1.0 if state == TrialState.COMPLETE else None,
                       datetime_start=when(T0 + claimed), datetime_complete=when(T0 + finished), params={},
                       distributions={}, user_attrs={} if enqueued is None else {"enqueued": T0 + enqueued},
                       system_attrs={"worker": worker}, intermediate_values={}, trial_id=number)


def test_spans_keep_answered_rollouts_with_their_worker_and_three_times():
    trials = [_trial(0, TrialState.COMPLETE, "w1", 0, 0, 3),
              _trial(1, TrialState.FAIL, "w2", 0, 0.5, 0.7),          # a failed attempt: not an answer
              _trial(2, TrialState.COMPLETE, "w2", None, 1, 4)]       # no enqueue time: counted from its claim
    got = spans(trials)
    assert [(s.worker, s.enqueued - T0, s.claimed - T0, s.finished - T0) for s in got] == [
        ("w1", 0, 0, 3), ("w2", 1, 1, 4)]


def test_timeline_splits_slot_seconds_into_busy_starved_and_empty():
    items = [Span("w1", 0, 0, 3), Span("w2", 0, 1, 4), Span("w1", 2, 3, 5)]
    tl = timeline(items, slots=2, n_buckets=5)
    # by hand, per second: [0,1) one running, one waiting (starved 1); [1,4) both busy;
    # [4,5) one running, nothing queued (empty 1): 10 slot-seconds = 8 busy + 1 starved + 1 empty
    assert tl.span_s == 5 and tl.slots == 2
    assert (tl.busy_s, tl.starved_s, tl.empty_s, tl.max_waiting) == (8, 1, 1, 1)
    assert [(w.worker, w.rollouts, w.busy_s, w.share) for w in tl.workers] == [("w1", 2, 5, 1.0), ("w2", 1, 3, 0.6)]
    assert tl.buckets == [(0, 1, 1), (1, 0, 2), (2, 1, 2), (3, 0, 2), (4, 0, 1)]
    text = render(tl)
    assert "3 answered rollouts over 5.0s, 2 slot(s)" in text and "starved 1.0 (10%" in text


def test_a_missing_worker_shows_as_idle_slot_seconds():
    # two slots planned, one worker ever answered: half the slot-seconds are idle
    tl = timeline([Span("w1", 0, 0, 2), Span("w1", 0, 2, 4)], slots=2)
    assert len(tl.workers) == 1 and tl.busy_s == 4
    assert tl.starved_s == pytest.approx(2) and tl.empty_s == pytest.approx(2)


def test_no_answers_is_an_empty_timeline():
    tl = timeline([])
    assert (tl.span_s, tl.workers, tl.buckets) == (0.0, [], [])
