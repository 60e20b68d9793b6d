"""A queue of rollouts kept in an Optuna study on RDB storage (PostgreSQL for several machines).

Each rollout is one trial of the study `<run>.rollouts`: the search enqueues it WAITING with the
job in its user attributes; a worker claims it (WAITING -> RUNNING is one locked row update, so
exactly one worker wins), keeps its heartbeat while the rollout runs, and completes it with the
result and trajectory as JSON. A worker that stops beating (killed, machine lost) is failed by
Optuna's stale-trial check and its rollout re-enqueued by Optuna's retry callback; a late answer
from it is refused by the storage (the trial is already finished), so it is never counted twice.
The study's user attribute `harnessx.config` tells workers what to build (suite, model).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import optuna
import sqlalchemy
from optuna.exceptions import UpdateFinishedTrialError
from optuna.storages import RDBStorage, fail_stale_trials
from optuna.trial import FrozenTrial, TrialState
from sqlalchemy.exc import IntegrityError, ProgrammingError
from sqlalchemy.pool import NullPool

from harnessx.agent.result import RolloutResult
from harnessx.errors import InputError
from harnessx.executors.base import RolloutJob
from harnessx.trajectory import Trajectory

try:  # Optuna >= 4.9 renamed the retry callback
    from optuna.storages import RetryHeartbeatStaleTrialCallback as _Retry
    _RETRY_KW = "heartbeat_stale_trial_callback"
except ImportError:  # pragma: no cover - older Optuna
    from optuna.storages import RetryFailedTrialCallback as _Retry
    _RETRY_KW = "failed_trial_callback"

warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # heartbeats, retry callback
RDB_SCHEMES = ("postgresql", "mysql", "sqlite", "oracle", "mssql")
CONFIG_ATTR = "harnessx.config"
DONE_ATTR = "harnessx.done"
WORKER_ATTR = "harnessx.worker:"  # + worker id: {"joined": epoch seconds, "slots": n}
SCHEMA_ATTEMPTS = 6  # tries at opening the storage while another process creates Optuna's schema
SCHEMA_LOCK_KEY = 0x4858_5153  # PostgreSQL advisory lock id ("HXQS") serialising that creation


@dataclass(frozen=True)
class QueueSettings:
    heartbeat_s: int = 2      # a running rollout's heartbeat interval
    grace_s: int = 8          # a rollout whose heartbeat is older than this is stale: failed and retried
    max_retry: int = 2        # re-enqueues after a stale failure, then the rollout is an error
    poll_s: float = 0.2       # how often the search and idle workers look at the queue (0.05 s was no
                              # faster in bench/scaling.py at 1 s per call: 0.91 vs 0.90 of ideal)


def queue_name(run_name: str) -> str:
    return f"{run_name}.rollouts"


def check_rdb_url(url: str | None, source: str = "--storage") -> str:
    if not url or url.split(":", 1)[0].split("+", 1)[0] not in RDB_SCHEMES:
        raise InputError(source, f"the rollout queue needs an Optuna RDB storage URL, got {url!r}",
                         "e.g. postgresql://user@127.0.0.1:5432/harnessx")
    return url


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class Claimed:
    trial_id: int
    number: int
    attrs: dict[str, Any]


class RolloutQueue:
    """The queue study; every method is a blocking storage call (run them off the event loop)."""

    def __init__(self, url: str, name: str, settings: QueueSettings | None = None):
        self.settings = settings or QueueSettings()
        self.storage = open_storage(check_rdb_url(url), self.settings)
        self.name = name
        self.study = optuna.create_study(study_name=name, storage=self.storage, load_if_exists=True)
        self.study_id = self.study._study_id

    # --- the search's side -----------------------------------------------------------------------
    def publish(self, config: dict[str, Any]) -> None:
        self.study.set_user_attr(CONFIG_ATTR, config)
        self.study.set_user_attr(DONE_ATTR, False)

    def finish(self) -> None:
        self.study.set_user_attr(DONE_ATTR, True)

    def enqueue(self, job: RolloutJob) -> None:
        self.study.add_trial(optuna.trial.create_trial(state=TrialState.WAITING, user_attrs={
            "key": job.key, "task_id": job.task.id, "seed": job.seed, "challenge": job.challenge,
            "harness": job.harness.model_dump_json(), "enqueued": time.time()}))

    def workers(self) -> dict[str, dict[str, Any]]:
        """The workers that joined this queue (worker id -> what it recorded when joining)."""
        attrs = self.storage.get_study_system_attrs(self.study_id)
        return {k.removeprefix(WORKER_ATTR): v for k, v in attrs.items() if k.startswith(WORKER_ATTR)}

    def trials(self) -> list[FrozenTrial]:
        """Every trial; through Optuna's cached storage, so finished trials are read once."""
        return self.study.get_trials(deepcopy=False)

    def exhausted(self, trial: FrozenTrial) -> bool:
        """A stale-failed trial that Optuna will not retry again."""
        return len(trial.system_attrs.get("retry_history", [])) >= self.settings.max_retry

    # --- a worker's side ------------------------------------------------------------------------
    def config(self) -> dict[str, Any] | None:
        return self.storage.get_study_user_attrs(self.study_id).get(CONFIG_ATTR)

    def join(self, slots: int) -> None:
        """Record that this worker serves the queue (so a caller can wait for N workers, not connections)."""
        self.storage.set_study_system_attr(self.study_id, WORKER_ATTR + worker_id(),
                                           {"joined": time.time(), "slots": slots})

    def done(self) -> bool:
        return bool(self.storage.get_study_user_attrs(self.study_id).get(DONE_ATTR))

    def claim(self) -> Claimed | None:
        """The first waiting rollout this worker wins, or None. A trial another process finished between
        the listing and the claim (answered, or failed as stale under load) is not ours: the next is tried."""
        for trial in self.storage.get_all_trials(self.study_id, deepcopy=False, states=(TrialState.WAITING,)):
            try:
                if not self.storage.set_trial_state_values(trial._trial_id, TrialState.RUNNING):
                    continue
                self.storage.set_trial_system_attr(trial._trial_id, "worker", worker_id())
            except UpdateFinishedTrialError:
                continue
            return Claimed(trial._trial_id, trial.number, dict(trial.user_attrs))
        return None

    def heartbeat(self, trial_id: int) -> None:
        self.storage.record_heartbeat(trial_id)

    def complete(self, trial_id: int, result: RolloutResult, traj: Trajectory) -> bool:
        """Store the answer and finish the trial; False if it was already failed as stale."""
        try:
            self.storage.set_trial_user_attr(trial_id, "result", result.model_dump_json())
            self.storage.set_trial_user_attr(trial_id, "trajectory", traj.to_jsonl())
            return self.storage.set_trial_state_values(trial_id, TrialState.COMPLETE, [result.duration_s])
        except UpdateFinishedTrialError:
            return False

    def fail(self, trial_id: int, error: str) -> None:
        """A rollout that cannot run here (a bug, a mismatched setup): an error for the search, not a retry."""
        try:
            self.storage.set_trial_user_attr(trial_id, "error", error[:4000])
            self.storage.set_trial_state_values(trial_id, TrialState.FAIL)
        except UpdateFinishedTrialError:
            pass

    def fail_stale(self) -> None:
        fail_stale_trials(self.study)


def open_storage(url: str, settings: QueueSettings) -> RDBStorage:
    """Optuna's RDB storage with heartbeats and stale retries. Optuna creates its schema on first use;
    processes opening a fresh database at the same moment collide on that (PostgreSQL: a duplicate
    `CREATE TYPE`, table or version row), and the loser finds the schema there when it tries again."""
    for attempt in range(SCHEMA_ATTEMPTS):
        try:
            with _schema_lock(url):
                return RDBStorage(url, heartbeat_interval=settings.heartbeat_s, grace_period=settings.grace_s,
                                  **{_RETRY_KW: _Retry(max_retry=settings.max_retry)})
        except (IntegrityError, ProgrammingError):  # a real schema problem still raises, after the last try
            if attempt == SCHEMA_ATTEMPTS - 1:
                raise
            time.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


@contextlib.contextmanager
def _schema_lock(url: str) -> Iterator[None]:
    """PostgreSQL: one opener at a time creates or checks Optuna's schema (a session advisory lock, held
    for the storage's construction only); other databases rely on the retry above."""
    if not url.split(":", 1)[0].startswith("postgresql"):
        yield
        return
    engine = sqlalchemy.create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            conn.execute(sqlalchemy.text("SELECT pg_advisory_lock(:key)"), {"key": SCHEMA_LOCK_KEY})
            try:
                yield
            finally:
                conn.execute(sqlalchemy.text("SELECT pg_advisory_unlock(:key)"), {"key": SCHEMA_LOCK_KEY})
    finally:
        engine.dispose()


def answer(trial: FrozenTrial) -> tuple[RolloutResult, Trajectory]:
    attrs = trial.user_attrs
    return RolloutResult.model_validate_json(attrs["result"]), Trajectory.from_jsonl(attrs["trajectory"])


def encode_config(env: str, suite_options: dict[str, Any], model: str, api_base: str | None,
                  run_name: str, tracking_uri: str | None, temperature: float = 0.0,
                  top_p: float | None = None, reasoning_effort: str | None = None) -> dict[str, Any]:
    """What a worker builds: suite, model and the model's default sampling (part of every rollout key)."""
    return json.loads(json.dumps({"env": env, "suite_options": suite_options, "model": model, "api_base": api_base,
                                  "run_name": run_name, "tracking_uri": tracking_uri, "temperature": temperature,
                                  "top_p": top_p, **({"reasoning_effort": reasoning_effort} if reasoning_effort else {})}))
