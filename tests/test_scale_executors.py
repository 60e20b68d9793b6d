"""The executor seam: Ray gives the same rollouts, accounting and progress as the in-process
executor; a Ray worker dying mid-rollout is retried and counted once; environment failures stay
excluded and named; bad executor options are one clear error."""

from __future__ import annotations

import asyncio

import pytest
from typer.testing import CliRunner

from harnessx.agent.runner import Runner
from harnessx.cli.main import app
from harnessx.envs.toy import ToySuite
from harnessx.executors import ExecutorConfig, make_executor
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient
from scale_services import FlakySuite, facts as _facts, fixed_latency_model, ray_local  # noqa: F401

SEEDS = [0, 1]


def _run(suite, model, executor, progress=None):
    runner = Runner(suite, model, concurrency=8, executor=executor)

    async def go():
        try:
            return await runner.run_many(load_preset("A1"), suite.tasks(), SEEDS, progress=progress)
        finally:
            await runner.aclose()

    return runner, asyncio.run(go())


def test_ray_pool_gives_the_in_process_rollouts(tmp_path, ray_local):
    model = ModelClient(fixed_latency_model(tmp_path))
    seen = {"asyncio": 0, "ray": 0}

    def tick(kind):
        return lambda result: seen.__setitem__(kind, seen[kind] + 1)

    local, local_results = _run(ToySuite(), model, "asyncio", progress=tick("asyncio"))
    ray_exec = make_executor(ExecutorConfig("ray", workers=4), ToySuite(), model)
    remote, remote_results = _run(ToySuite(), model, ray_exec, progress=tick("ray"))
    assert len(local_results) == 12 * len(SEEDS)
    assert _facts(remote, remote_results) == _facts(local, local_results)
    assert remote.model_calls == local.model_calls > 0          # accounting: calls paid, once each
    assert seen["ray"] == seen["asyncio"] == len(local_results)  # progress: one tick per rollout
    assert all(remote.trajectory(r).is_authentic() for r in remote_results)


def test_a_dying_ray_worker_is_retried_once_and_env_failures_stay_excluded(tmp_path, ray_local):
    model = ModelClient(fixed_latency_model(tmp_path))
    marker = tmp_path / "died"
    local, local_results = _run(FlakySuite(), model, "asyncio")  # no marker: nothing dies in-process
    ray_exec = make_executor(ExecutorConfig("ray", workers=1), FlakySuite(str(marker)), model)
    remote, remote_results = _run(FlakySuite(str(marker)), model, ray_exec)
    assert marker.is_file()                  # the worker process really died mid-rollout (toy-0, first attempt)
    assert ray_exec.retried >= 1
    assert _facts(remote, remote_results) == _facts(local, local_results)
    assert remote.model_calls == local.model_calls  # the dead attempt's calls are not counted
    failed = [r for r in remote_results if r.status == "env_failure"]
    assert len(failed) == 4 * len(SEEDS) and not any(r.valid for r in failed)   # excluded, never scored ...
    assert all("could not start" in remote.trajectory(r).first("error").data["detail"] for r in failed)  # ... named


@pytest.mark.parametrize("args, needle", [
    (["--executor", "spark"], "'--executor': unknown executor 'spark'"),
    (["--executor", "queue"], "--executor queue: needs --storage"),
    (["--executor", "queue", "--storage", "runs/x.log"], "'runs/x.log' is not a database URL"),
    (["--ray-address", "auto"], "--ray-address: applies to --executor ray"),
])
def test_bad_executor_options_are_one_clear_error(tmp_path, args, needle):
    result = CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "0", "--no-mlflow", "--runs-dir",
                                      str(tmp_path), *args])
    assert result.exit_code == 2, result.output
    assert needle in " ".join(result.output.split())


def test_worker_refuses_what_it_cannot_join(tmp_path):
    runner = CliRunner()
    no_args = runner.invoke(app, ["worker"])
    assert no_args.exit_code == 2 and "runs/<name>, or --storage and --study" in " ".join(no_args.output.split())
    not_a_run = runner.invoke(app, ["worker", str(tmp_path)])
    assert not_a_run.exit_code == 2 and "no config.json" in not_a_run.output
    (tmp_path / "config.json").write_text('{"storage": null}')  # a search without --storage has no queue
    no_queue = runner.invoke(app, ["worker", str(tmp_path)])
    assert no_queue.exit_code == 2 and "needs an Optuna RDB storage URL" in " ".join(no_queue.output.split())
