"""`harnessx worker runs/<name>`: join a running search and run rollouts from its queue.

The search must run with `--executor queue --storage <database URL>`. The worker reads the URL
from `runs/<name>/config.json` (or takes `--storage` and `--study` when the run directory is on
another machine), builds the suite and model the search published, and runs whatever rollout is
waiting, on its own executor (in-process, or a Ray pool on its machine). It stops when the search
has finished and nothing waits (or after `--idle-exit` seconds with nothing to do).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.aliases import aliased
from harnessx.cli.common import console, friendly_errors
from harnessx.cli.numbers import NON_NEGATIVE
from harnessx.cli.scale_opts import RayAddressOpt
from harnessx.errors import InputError


def worker(
    run_dir: Path = typer.Argument(None, callback=checks.existing("dir"), help="The search's run directory (runs/<name>); its config.json names "
                                   "the storage."),
    storage: str = typer.Option(None, "--storage", callback=checks.storage, help="The search's Optuna RDB URL (default: from config.json)."),
    study: str = typer.Option(None, "--study", help="The search's run name (default: the run directory's name)."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Rollouts this worker runs at once (with "
                                    "--executor ray: the actors of its pool)."),
    executor: str = typer.Option("asyncio", "--executor", callback=checks.worker_executor, help="How this worker runs them: asyncio or ray."),
    ray_address: str = RayAddressOpt,
    idle_exit: float = typer.Option(None, "--idle-exit", callback=NON_NEGATIVE, help="Stop after this many seconds with no work."),
    wait: float = typer.Option(60.0, "--wait", callback=NON_NEGATIVE, help="Seconds to wait for the search to publish its setup."),
) -> None:
    """Join a running search (--executor queue) and run rollouts from its queue."""
    from harnessx.agent.keys import rollout_model_id
    from harnessx.envs.registry import get_suite
    from harnessx.executors import ExecutorConfig, make_executor, suite_factory
    from harnessx.executors.rollout_queue import (
        RolloutQueue,
        check_rdb_url,
        queue_name,
        worker_id,
    )
    from harnessx.executors.worker import QueueWorker
    from harnessx.extras import require_extra
    from harnessx.models.client import ModelClient
    from harnessx.search.uris import check_storage

    if run_dir is None and not (storage and study):
        raise InputError("harnessx worker", "no run directory", "runs/<name>, or --storage and --study")
    if run_dir is not None:
        config_file = run_dir / "config.json"
        if not config_file.is_file():
            raise InputError(str(run_dir), "not a search run directory (no config.json)", "runs/<name> of a search")
        storage = storage or json.loads(config_file.read_text()).get("storage")
        study = study or run_dir.name
    if executor not in ("asyncio", "ray"):
        raise InputError("--executor", f"a worker runs rollouts with asyncio or ray, not {executor!r}")
    if executor == "ray":
        require_extra("--executor ray", "ray", "running rollouts on Ray")
    check_rdb_url(storage)
    check_storage(storage)  # its driver installed, its server answering
    queue = RolloutQueue(storage, queue_name(study))
    queue.join(concurrency)  # counted by whoever waits for N workers (the scaling bench)
    deadline = time.monotonic() + wait
    while (shared := queue.config()) is None:
        if time.monotonic() > deadline:
            raise InputError(f"{storage} study {queue.name}", f"no search published its setup within {wait:.0f}s",
                             "a search running with --executor queue")
        time.sleep(queue.settings.poll_s)
    suite = get_suite(shared["env"], **shared["suite_options"])
    model = ModelClient(shared["model"], api_base=shared["api_base"], temperature=shared.get("temperature", 0.0),
                        top_p=shared.get("top_p"), reasoning_effort=shared.get("reasoning_effort"))
    runner = make_executor(ExecutorConfig(executor, workers=concurrency if executor == "ray" else None,
                                          ray_address=ray_address), suite, model,
                           factory=suite_factory(suite, shared["env"], shared["suite_options"]))
    console.print(f"[bold]harnessx worker[/] {worker_id()} joined {study} ({queue.name}): env={shared['env']} "
                  f"model={model.describe()} concurrency={concurrency} executor={executor}")
    work = QueueWorker(queue, runner, {t.id: t for t in suite.tasks()}, rollout_model_id(model, suite), slots=concurrency)

    async def serve():
        try:
            return await work.serve(until_done=True, idle_exit_s=idle_exit)
        finally:
            await runner.aclose()

    stats = asyncio.run(serve())
    console.print(f"worker {worker_id()}: {stats.done} rollouts answered, {stats.dropped} dropped (failed as stale "
                  f"meanwhile), {stats.failed} failed, busy {stats.busy_s:.1f}s")
    _track(shared, study, stats)


def _track(shared: dict, run_name: str, stats) -> None:
    """This worker's nested run under the search's MLflow parent (tracking servers and database stores;
    a relative sqlite path would name another file on this machine, so it is skipped unless it exists)."""
    from harnessx.executors.rollout_queue import worker_id
    from harnessx.search.tracking import log_worker_run

    uri = shared.get("tracking_uri")
    if not uri or (uri.startswith("sqlite:///") and not Path(uri.removeprefix("sqlite:///")).is_file()):
        return
    metrics = {"rollouts": stats.done, "dropped": stats.dropped, "failed": stats.failed, "busy_s": stats.busy_s}
    run_id = log_worker_run(uri, run_name, worker_id(), metrics)
    if run_id is None:
        console.print(f"[yellow]MLflow at {uri}: no parent run for {run_name}; this worker's run was not logged[/]")
    else:
        console.print(f"MLflow: worker run {run_id} under {run_name}'s parent at {uri}")


def register(app: typer.Typer) -> None:
    app.command("worker", cls=aliased("worker"))(friendly_errors(worker))
