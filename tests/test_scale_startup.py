"""Several workers (and the search) opening one fresh PostgreSQL database at the same moment: every
one of them gets the queue. Optuna creates its schema on first use (CREATE TYPE / CREATE TABLE, the
version row), and two processes doing that at once collide on PostgreSQL's catalog; before the
queue retried that collision one of two `harnessx worker`s started together died at start-up, so the
scaling bench ran on one worker while believing it had two. A worker also records that it joined, so
whoever waits for N workers counts workers, not database connections."""

from __future__ import annotations

import threading

from harnessx.executors.rollout_queue import RolloutQueue
from scale_services import pg_databases, pg_url  # noqa: F401

OPENERS = 4


def _open_together(url: str, n: int) -> list[BaseException | RolloutQueue]:
    barrier = threading.Barrier(n)
    out: list[BaseException | RolloutQueue] = [None] * n  # type: ignore[list-item]

    def opener(i: int) -> None:
        barrier.wait()
        try:
            out[i] = RolloutQueue(url, "race.rollouts")
        except BaseException as exc:  # noqa: BLE001 - the test reports what broke
            out[i] = exc

    threads = [threading.Thread(target=opener, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()  # each opener returns or records what broke
    return out


def test_workers_opening_a_fresh_database_at_once_all_get_the_queue(pg_databases):
    for _ in range(2):  # the collision is a race (3 of 4 openers lost it on the first try before the fix)
        opened = _open_together(pg_databases(), OPENERS)
        errors = [f"{type(o).__name__}: {str(o)[:200]}" for o in opened if not isinstance(o, RolloutQueue)]
        assert errors == []
        assert len({q.study_id for q in opened}) == 1  # one study, not one each


def test_a_joined_worker_is_counted_once_per_worker_not_per_connection(pg_url):
    queue = RolloutQueue(pg_url, "join.rollouts")
    assert queue.workers() == {}
    queue.join(slots=3)
    queue.join(slots=3)  # the same worker joining again is still one worker
    (joined,) = queue.workers().values()
    assert joined["slots"] == 3 and joined["joined"] > 0
