"""A real Ray cluster: `ray start --head` on loopback, a search joining it with `--executor ray
--ray-address 127.0.0.1:<port>` selects what the in-process search selects, with the same ledger, and
its rollouts ran in actor processes of that head. The head runs in its own session (process group)
and is stopped by that group's id even when the test fails; it never touches another Ray on the
machine (own ports, own temp dir, own auth token).

Two Ray settings make a one-machine cluster work: `ray start` turns token authentication on, so the
search needs `RAY_AUTH_MODE=token` and the token (here `RAY_AUTH_TOKEN`; without them the search
stops with one clear error, checked on Ray's own exception below); and Ray replaces 127.0.0.1 by the machine's routable
address unless `RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`, which keeps every address on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import require

from harnessx.errors import InputError
from harnessx.executors.ray_pool import join_cluster
from harnessx.search import Search, SearchConfig
from harnessx.search.explore import ExploreSettings
from scale_services import REPO, fixed_latency_model
from waits import exited, until

RAY_PORT_OPTIONS = ("--port", "--node-manager-port", "--object-manager-port", "--ray-client-server-port",
                    "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port", "--runtime-env-agent-port",
                    "--metrics-export-port")


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _ray_env(token: str) -> dict[str, str]:
    return {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token,
            "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}


def _stop(head: subprocess.Popen) -> None:
    """The head's whole process group: SIGTERM, then SIGKILL what is left (by the group's id only)."""
    for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(head.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                os.killpg(head.pid, 0)
            except ProcessLookupError:
                return
            head.poll()
            time.sleep(0.2)


@pytest.fixture
def ray_head():
    """`ray start --head --block` on 127.0.0.1 with 2 CPUs: (address, token, session logs dir)."""
    require("ray")
    ports = dict(zip(RAY_PORT_OPTIONS, _free_ports(len(RAY_PORT_OPTIONS))))
    temp = Path(tempfile.mkdtemp(prefix="hxray"))  # short: Ray's socket paths must stay under 108 bytes
    token = secrets.token_hex(32)
    cmd = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block", "--node-ip-address",
           "127.0.0.1", "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats",
           "--temp-dir", str(temp), "--object-store-memory", str(100 * 1024 * 1024),
           "--min-worker-port", "0", "--max-worker-port", "0",
           *[x for opt, port in ports.items() for x in (opt, str(port))]]
    log = (temp / "head.log").open("w")
    head = subprocess.Popen(cmd, env=_ray_env(token), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        address = f"127.0.0.1:{ports['--port']}"
        until(lambda: "Ray runtime started" in (temp / "head.log").read_text(),
              unless=exited(head, "ray start --head came up", temp / "head.log"))
        yield address, token, temp / "session_latest" / "logs"
    finally:
        _stop(head)
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def _search(tmp: Path, name: str, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "harnessx.cli.main", "search", "--env", "toy", "--model", fixed_latency_model(tmp),
           "--rounds", "1", "--proposals", "2", "--seed", "0", "--no-mlflow", "--runs-dir", str(tmp / f"runs-{name}"),
           "--name", name, *extra]
    env = {**env, "PYTHONPATH": str(REPO) + os.pathsep + env.get("PYTHONPATH", "")}
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


def _outcome(tmp: Path, name: str) -> tuple[str, list[dict]]:
    run = tmp / f"runs-{name}" / name
    summary = json.loads((run / "summary.json").read_text())
    ledger = [{k: v for k, v in json.loads(line).items() if k not in ("mlflow_run_id", "started", "finished")}
              for line in (run / "ledger.jsonl").read_text().splitlines()]
    return summary["selected"]["hash"], ledger


@pytest.mark.slow
def test_a_search_on_a_ray_start_head_selects_what_one_process_selects(tmp_path, ray_head):
    address, token, logs = ray_head
    on_head = _search(tmp_path, "head", _ray_env(token), "--executor", "ray", "--ray-address", address,
                      "--ray-actors", "2")
    assert on_head.returncode == 0, on_head.stdout[-3000:] + on_head.stderr[-3000:]
    asyncio.run(Search(SearchConfig.of(objective="joint", env="toy", model=fixed_latency_model(tmp_path), rounds=1,
                                    proposals=2, seed=0, tracking_uri=None, name="one",
                                    runs_dir=str(tmp_path / "runs-one"))).run())

    assert _outcome(tmp_path, "head") == _outcome(tmp_path, "one")
    assert len(_outcome(tmp_path, "one")[1]) == 1 + 1 * ExploreSettings().looks(2)  # R0 + a round's gated looks
    # the rollouts ran in the head's actor processes (Ray names each actor's log after its class)
    actor_logs = [p for p in logs.glob("worker-*.out") if "RolloutActor" in p.read_text(errors="replace")]
    assert len(actor_logs) >= 2


class _RefusingRay:
    """Stands in for the `ray` module at the one call `join_cluster` makes, raising what Ray 2.60's
    `ray.init` raises when the cluster wants a token the process does not have."""

    def __init__(self, cause: Exception):
        self.cause = cause

    def init(self, **_kw):
        raise ConnectionError("Failed to connect to Ray cluster at 127.0.0.1:6379") from self.cause


def test_a_cluster_refusing_the_search_is_one_clear_error_naming_the_fix():
    require("ray")
    from ray.exceptions import AuthenticationError

    with pytest.raises(InputError) as refused:
        join_cluster(_RefusingRay(AuthenticationError("InvalidAuthToken: Authentication token is missing")),
                     "127.0.0.1:6379")
    assert refused.value.source == "--ray-address" and "RAY_AUTH_MODE=token" in str(refused.value)
    with pytest.raises(InputError) as absent:
        join_cluster(_RefusingRay(OSError("connection refused")), "127.0.0.1:6379")
    assert "no Ray cluster answered at 127.0.0.1:6379" in str(absent.value)
    assert "RAY_AUTH_MODE" not in str(absent.value)
