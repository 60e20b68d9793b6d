"""MLflow tracking server for teams: `mlflow server` on loopback with a PostgreSQL backend store,
started here; a search with its rollouts on 2 `harnessx worker` processes logs its parent run,
one nested run per candidate and one nested run per worker, all under the one parent."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from waits import exited, until
import urllib.request

import pytest

from harnessx.search import Search, SearchConfig
from harnessx.search.explore import ExploreSettings
from scale_services import answered, fixed_latency_model, pg_databases, pg_url, workers  # noqa: F401


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        urllib.request.urlopen(url + "/health", timeout=2)  # one try; refused until the server listens
    except OSError:
        return False
    return True


@pytest.fixture
def mlflow_server(tmp_path, pg_databases):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mlflow", "server", "--backend-store-uri", pg_databases(), "--host",
                             "127.0.0.1", "--port", str(port), "--artifacts-destination", str(tmp_path / "artifacts"),
                             "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: _healthy(url), unless=exited(proc, f"the mlflow server answered on {url}"))
        yield url
    finally:
        proc.terminate()  # by its PID, the one we started
        proc.wait(timeout=30)


@pytest.mark.slow
def test_runs_from_several_workers_land_under_one_parent(tmp_path, pg_url, mlflow_server):
    from mlflow import MlflowClient

    config = SearchConfig.of(objective="joint", env="toy", model=fixed_latency_model(tmp_path), rounds=1, proposals=2,
                          runs_dir=str(tmp_path / "runs"), name="team", tracking_uri=mlflow_server,
                          executor="queue", storage=pg_url, workers=0)  # the search only decides
    procs = workers(2, "--storage", pg_url, "--study", "team")     # as on machines without the run dir
    try:
        result = asyncio.run(Search(config).run())
        outputs = [w.communicate()[0] for w in procs]  # they exit once the search is done
    finally:
        for w in procs:
            if w.poll() is None:
                w.kill()
    assert all(w.returncode == 0 for w in procs), outputs
    assert sum(answered(o) for o in outputs) == result.summary["rollouts"]  # every rollout ran on a worker

    client = MlflowClient(tracking_uri=mlflow_server)
    experiment = client.get_experiment_by_name("harnessx-search")
    runs = client.search_runs([experiment.experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parents[0].info.run_id]
    candidates = [r for r in children if "harnessx.hash" in r.data.tags]
    worker_runs = [r for r in children if "harnessx.worker" in r.data.tags]
    assert len(runs) == 1 + len(candidates) + len(worker_runs)                  # nothing outside the parent
    assert len(candidates) == 1 + ExploreSettings().looks(2) and len(worker_runs) == 2  # R0 + a round's looks; 2 workers
    assert len({r.data.tags["harnessx.worker"] for r in worker_runs}) == 2
    assert sum(r.data.metrics["rollouts"] for r in worker_runs) == result.summary["rollouts"]
    ledger_ids = {row["mlflow_run_id"] for row in result.ledger}
    assert ledger_ids == {r.info.run_id for r in candidates}
    assert "harness.yaml" in {a.path for a in client.list_artifacts(candidates[0].info.run_id)}  # via the server
