"""CLI options for where rollouts run (`--executor`, `--ray-address`, `--ray-actors`, `--local-rollouts`)."""

from __future__ import annotations

import socket

import typer

from harnessx.cli import checks
from harnessx.errors import InputError, one_of
from harnessx.executors import EXECUTORS
from harnessx.extras import require_extra
from harnessx.search.uris import check_storage

ExecutorOpt = typer.Option("asyncio", "--executor", callback=checks.executor, help="Where rollouts run: " + "; ".join(
    f"{k} = {v}" for k, v in EXECUTORS.items()) + ".")
RayAddressOpt = typer.Option(None, "--ray-address", help="ray: `auto` (a running cluster, e.g. `ray start --head`), "
                             "ray://host:10001, or none for a local Ray started by this command.")
RayActorsOpt = typer.Option(None, "--ray-actors", min=1, help="ray: actors in the pool (default: CPUs, at most 8).")
LocalRolloutsOpt = typer.Option(None, "--local-rollouts", min=0, help="queue: rollouts this process runs itself "
                                "besides the attached workers (default 1, 0 = decide only).")
WorkersAliasOpt = typer.Option(None, "--workers", min=0, hidden=True,
                               help="Old name of --ray-actors (ray) and --local-rollouts (queue).")


def pool_size(executor: str, ray_actors: int | None, local_rollouts: int | None, workers: int | None) -> int | None:
    """The executor's own pool: --ray-actors for ray, --local-rollouts for queue (the old --workers
    stands for whichever the executor has); each applies to its executor only."""
    from harnessx.cli.aliases import SPLIT, renamed_note

    if workers is not None:
        new = SPLIT["search"]["--workers"].get(executor)
        if new is None:
            raise InputError("--workers", f"applies to --executor ray or queue, not {executor!r}")
        typer.echo(renamed_note("--workers", new), err=True)
        ray_actors, local_rollouts = (workers, local_rollouts) if executor == "ray" else (ray_actors, workers)
    if ray_actors is not None and executor != "ray":
        raise InputError("--ray-actors", f"applies to --executor ray, not {executor!r}")
    if local_rollouts is not None and executor != "queue":
        raise InputError("--local-rollouts", f"applies to --executor queue, not {executor!r}")
    return ray_actors if executor == "ray" else local_rollouts


def check_executor(executor: str, ray_address: str | None, storage: str | None) -> None:
    if executor not in EXECUTORS:
        raise InputError("--executor", f"unknown executor {executor!r}", one_of(EXECUTORS))
    if ray_address and executor != "ray":
        raise InputError("--ray-address", f"applies to --executor ray, not {executor!r}")
    if executor == "queue":
        if not storage:
            raise InputError("--executor queue", "needs --storage", "an Optuna RDB URL such as postgresql://…")
        from harnessx.executors.rollout_queue import check_rdb_url

        check_rdb_url(storage)
    if executor == "queue":
        check_storage(storage)  # its driver installed, its server answering
    if executor == "ray":
        require_extra("--executor ray", "ray", "running rollouts on Ray")
        if ray_address:
            check_ray_address_reachable(ray_address)


def check_ray_address_reachable(address: str, timeout_s: float = 3.0) -> None:
    """A `host:port` or `ray://host:port` address must accept a TCP connection; Ray itself waits about a
    minute per attempt on a dead address before failing, after the run directory exists. `auto` (the
    cluster this node belongs to) is left to Ray."""
    if address == "auto":
        return
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InputError("--ray-address", f"{address!r} is not host:port", "auto, host:port or ray://host:10001")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise InputError("--ray-address", f"nothing answers at {address} ({exc.strerror or exc})",
                         "the address `ray start --head` printed; start a head with `ray start --head --port PORT`"
                         ) from None
