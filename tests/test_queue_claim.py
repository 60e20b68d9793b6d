"""A worker's claim survives a trial that another process finished between the listing and the claim
(CI under load: a worker died on Optuna's UpdateFinishedTrialError). On an SQLite queue, no server."""

from __future__ import annotations

from optuna.exceptions import UpdateFinishedTrialError

from harnessx.envs.toy import ToySuite
from harnessx.executors.base import RolloutJob
from harnessx.executors.rollout_queue import RolloutQueue
from harnessx.harness.presets import load_preset


def test_a_trial_finished_under_the_claim_is_skipped_for_the_next(tmp_path):
    queue = RolloutQueue(f"sqlite:///{tmp_path / 'q.db'}", "q")
    task, harness = ToySuite(2).tasks("search")[0], load_preset("A1")
    for seed in (0, 1):
        queue.enqueue(RolloutJob(harness, task, seed, f"key-{seed}"))
    first = queue.trials()[0]._trial_id
    real = queue.storage.set_trial_system_attr

    def finished_meanwhile(trial_id, key, value):
        if trial_id == first:
            raise UpdateFinishedTrialError(f"Trial#{trial_id} has already finished and can not be updated.")
        return real(trial_id, key, value)

    queue.storage.set_trial_system_attr = finished_meanwhile
    claimed = queue.claim()
    assert claimed is not None and claimed.trial_id != first and claimed.attrs["seed"] == 1
    assert queue.claim() is None  # the first stays RUNNING (the stale check's business), nothing else waits
