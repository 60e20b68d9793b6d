"""The rollout queue on PostgreSQL (Optuna RDB storage): rollouts run by a worker come back as the
in-process ones; a worker that stops beating is failed as stale by Optuna, its rollout re-run by
another worker and its late answer refused (never counted twice); a worker whose setup differs is an
error for the search, not a silent re-run; a resumed search takes finished rollouts from the queue."""

from __future__ import annotations

import asyncio
import math
import threading

import pytest
from optuna.trial import TrialState

from harnessx.agent.runner import Runner, rollout_key, rollout_model_id
from harnessx.envs.terminal.suite import TerminalSuite
from harnessx.envs.toy import ToySuite
from harnessx.executors import ExecutorConfig, ExecutorError, RolloutJob, make_executor
from harnessx.executors.inprocess import InProcessExecutor
from harnessx.executors.rollout_queue import QueueSettings, RolloutQueue, answer
from harnessx.executors.worker import QueueWorker
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script
from scale_services import facts as _facts, fixed_latency_model, pg_databases, pg_url  # noqa: F401
from waits import POLL_S, Stopwatch

HEARTBEAT_S = 1
BEATS_MEASURED = 5
GRACE_FACTOR = 50  # the measured grace is this many times the slowest heartbeat measured on this machine, now
# A live worker is failed as stale when no heartbeat lands within the grace; a fixed 2 s grace did so
# under heavy load (a heartbeat is a thread hop and a database write, both waiting for a core). Tests
# where staleness is not what they test never let it happen (LIVE); the one that needs a worker failed
# as stale triggers that check itself, once, while only the silent worker's rollout is running.
LIVE = {"heartbeat_s": HEARTBEAT_S, "grace_s": 24 * 3600, "poll_s": 0.05}


@pytest.fixture
def fast():
    return LIVE


@pytest.fixture
def measured(pg_url):
    """Queue settings with a short heartbeat and a grace derived from this machine's speed right now,
    for the test whose step must outlast the grace: a few heartbeats are timed on a scratch queue of the
    same database, through the path a worker beats by (asyncio.to_thread); the grace is GRACE_FACTOR
    times the slowest, at least twice the heartbeat."""
    suite, harness = ToySuite(), load_preset("A1")
    task = suite.tasks()[0]
    probe = RolloutQueue(pg_url, "heartbeat-probe", QueueSettings(heartbeat_s=HEARTBEAT_S, grace_s=3600))
    probe.enqueue(RolloutJob(harness, task, 0, "probe"))
    claimed = probe.claim()
    beats = Stopwatch()

    async def beat():
        for _ in range(BEATS_MEASURED):
            started = asyncio.get_running_loop().time()
            await asyncio.to_thread(probe.heartbeat, claimed.trial_id)
            beats.seconds.append(asyncio.get_running_loop().time() - started)

    asyncio.run(beat())
    grace = max(2 * HEARTBEAT_S, HEARTBEAT_S + math.ceil(beats.bound(GRACE_FACTOR)))
    return {"heartbeat_s": HEARTBEAT_S, "grace_s": grace, "poll_s": 0.05}


def _queue_executor(url, model, fast, workers=0, name="q"):
    return make_executor(ExecutorConfig("queue", workers=workers, storage=url, queue_name=name, options=fast),
                         ToySuite(), model, queue_config={"env": "toy"})


async def _with_worker(runner, coro, worker):
    """Run `coro` on the runner while `worker` serves the queue; stop the worker after."""
    serving = asyncio.create_task(worker.serve())
    try:
        return await coro
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
        await runner.aclose()


def _worker(url, model, fast, name="q", model_name=None):
    queue = RolloutQueue(url, name, QueueSettings(**fast))  # its own connection, as another process would have
    suite = ToySuite()
    return QueueWorker(queue, InProcessExecutor(suite, model), {t.id: t for t in suite.tasks()},
                       model_name or rollout_model_id(model, suite), slots=2, stale_check_s=0.5)


def test_queue_rollouts_are_the_in_process_rollouts(tmp_path, pg_url, fast):
    model = ModelClient(fixed_latency_model(tmp_path))
    suite, harness = ToySuite(), load_preset("A1")
    local = Runner(suite, model)
    local_results = asyncio.run(local.run_many(harness, suite.tasks(), [0, 1]))
    remote = Runner(suite, model, executor=_queue_executor(pg_url, model, fast))
    worker = _worker(pg_url, model, fast)
    results = asyncio.run(_with_worker(remote, remote.run_many(harness, suite.tasks(), [0, 1]), worker))
    assert _facts(remote, results) == _facts(local, local_results)
    assert worker.stats.done == len(results) == 24 and remote.model_calls == local.model_calls
    trials = RolloutQueue(pg_url, "q").trials()
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 24  # one trial per rollout, each answered once


def test_a_silent_worker_is_failed_as_stale_and_its_rollout_rerun_once(tmp_path, pg_url, fast):
    model = ModelClient(fixed_latency_model(tmp_path))
    suite, harness = ToySuite(), load_preset("A1")
    task = suite.tasks()[0]
    job = RolloutJob(harness, task, 0, rollout_key(harness, task, 0, rollout_model_id(model, suite)))
    executor = _queue_executor(pg_url, model, fast)

    async def scenario():
        pending = asyncio.create_task(executor.run(job))
        dead = RolloutQueue(pg_url, "q", QueueSettings(**fast))
        while (claimed := await asyncio.to_thread(dead.claim)) is None:  # the doomed worker takes the rollout,
            await asyncio.sleep(POLL_S)
        await asyncio.to_thread(dead.heartbeat, claimed.trial_id)       # beats once, then goes silent
        # the stale check, with a 1 s grace, run while the silent attempt is the only rollout running
        # (no live worker yet): nothing else can be failed by it, however slow the machine
        checker = RolloutQueue(pg_url, "q", QueueSettings(heartbeat_s=1, grace_s=1, poll_s=0.05))
        while not any(t.state == TrialState.FAIL for t in await asyncio.to_thread(dead.trials)):
            await asyncio.to_thread(checker.fail_stale)
            await asyncio.sleep(POLL_S)  # until the silent attempt's last beat is older than that grace
        live = _worker(pg_url, model, fast)
        serving = asyncio.create_task(live.serve())
        result, traj = await pending
        serving.cancel()
        late = await asyncio.to_thread(dead.complete, claimed.trial_id, result, traj)  # the dead one answers late
        await executor.aclose()
        return result, late, live.stats

    result, late, stats = asyncio.run(scenario())
    assert result.task_id == task.id and result.status == "ok"
    assert late is False                     # refused: the trial was already failed as stale
    assert stats.done == 1
    states = [t.state for t in RolloutQueue(pg_url, "q").trials()]
    assert states == [TrialState.FAIL, TrialState.COMPLETE]   # the stale attempt, then its one retry


def slow_solve(step_s: int):
    def solve(messages, tools, metadata):
        if not any(m["role"] == "tool" for m in messages):  # one agent command that takes step_s in the sandbox
            return {"content": "", "tool_calls": [{"name": "bash", "arguments": {
                "command": f"sleep {step_s}; echo 42 > answer.txt"}}]}
        return {"content": "Done."}

    return solve


@pytest.mark.requires("sandbox")
def test_a_terminal_step_longer_than_the_grace_keeps_its_heartbeat(tmp_path, pg_url, measured):
    # the worker's heartbeat runs on the event loop the rollout shares: a sandbox command that held
    # the loop for longer than the grace period would have its rollout failed as stale by the
    # search's check, and its answer refused. The step lasts twice the grace measured for this machine.
    from test_terminal_env import make_task

    make_task(tmp_path / "tasks")
    suite, harness = TerminalSuite(str(tmp_path / "tasks")), load_preset("A1")
    task = suite.tasks()[0]
    fast = measured
    step_s = 2 * fast["grace_s"] + 1
    model = ModelClient(register_script(f"terminal-slow-solve-{step_s}", slow_solve(step_s)))
    model_id = rollout_model_id(model, suite)
    RolloutQueue(pg_url, "q", QueueSettings(**fast)).enqueue(
        RolloutJob(harness, task, 0, rollout_key(harness, task, 0, model_id)))
    worker = QueueWorker(RolloutQueue(pg_url, "q", QueueSettings(**fast)), InProcessExecutor(suite, model),
                         {task.id: task}, model_id, slots=1, stale_check_s=0.5)
    stop = threading.Event()

    def search_side():  # what the search process does meanwhile, on its own connection and thread
        queue = RolloutQueue(pg_url, "q", QueueSettings(**fast))
        while not stop.wait(0.5):
            queue.fail_stale()

    checker = threading.Thread(target=search_side)
    checker.start()
    try:
        stats = asyncio.run(worker.serve(idle_exit_s=1.0))  # returns once the queue has been idle 1 s
    finally:
        stop.set()
        checker.join()
    assert (stats.done, stats.dropped, stats.failed) == (1, 0, 0)
    trials = RolloutQueue(pg_url, "q").trials()
    assert [t.state for t in trials] == [TrialState.COMPLETE]  # never failed as stale, never retried
    result, _ = answer(trials[0])
    assert result.status == "ok" and result.reward == 1.0


def test_a_worker_with_another_setup_is_an_error_for_the_search(tmp_path, pg_url, fast):
    model = ModelClient(fixed_latency_model(tmp_path))
    suite = ToySuite()
    runner = Runner(suite, model, executor=_queue_executor(pg_url, model, fast))
    worker = _worker(pg_url, model, fast, model_name="sim/weak")  # builds another model: every key differs
    with pytest.raises(ExecutorError, match="differs from the search's"):
        asyncio.run(_with_worker(runner, runner.run_many(load_preset("A1"), suite.tasks()[:2], [0]), worker))


def test_a_resumed_search_takes_answered_rollouts_from_the_queue(tmp_path, pg_url, fast):
    model = ModelClient(fixed_latency_model(tmp_path))
    suite, harness = ToySuite(), load_preset("A1")
    first = Runner(suite, model, executor=_queue_executor(pg_url, model, fast, workers=1))
    ran = Stopwatch()
    ran.time(lambda: asyncio.run(_run_and_close(first, harness, suite)))
    again = Runner(suite, model, executor=_queue_executor(pg_url, model, fast, workers=0))  # no worker at all now
    try:  # with no worker, a rollout not taken from the queue would wait forever: 10x the first run is that
        results = asyncio.run(asyncio.wait_for(_run_and_close(again, harness, suite), ran.bound(10)))
    except TimeoutError:
        raise AssertionError(f"the resumed search waited for a worker ({ran.bound(10):.0f} s, 10x the first "
                             "run's wall time): it did not take the answered rollouts from the queue") from None
    assert len(results) == 12
    assert len(RolloutQueue(pg_url, "q").trials()) == 12  # nothing enqueued twice


async def _run_and_close(runner, harness, suite):
    try:
        return await runner.run_many(harness, suite.tasks(), [0])
    finally:
        await runner.aclose()


def test_a_worker_checks_the_whole_rollout_key_the_search_made_sampling_and_profile_included(tmp_path):
    # the search samples at temperature 0.7 with a simulated profile whose contents are in the key: a
    # worker built from what the search publishes (encode_config) makes the same key; one that ignored
    # the published sampling would run other rollouts under the search's keys, and is refused instead
    from harnessx.executors.rollout_queue import encode_config

    suite, harness, task = ToySuite(), load_preset("A1"), ToySuite().tasks()[0]
    search_model = ModelClient(fixed_latency_model(tmp_path), temperature=0.7)
    key = rollout_key(harness, task, 3, Runner(suite, search_model).model_id)
    shared = encode_config("toy", {}, search_model.model, None, "run", None, 0.7, None)
    attrs = {"task_id": task.id, "harness": harness.model_dump_json(), "seed": 3, "key": key}

    def worker_with(model):
        return QueueWorker(None, InProcessExecutor(suite, model), {t.id: t for t in suite.tasks()},
                           rollout_model_id(model, suite))

    same = ModelClient(shared["model"], api_base=shared["api_base"], temperature=shared["temperature"],
                       top_p=shared["top_p"])
    assert worker_with(same).job(attrs).key == key
    with pytest.raises(ExecutorError, match="differs from the search's"):
        worker_with(ModelClient(shared["model"])).job(attrs)  # temperature 0: another rollout
