"""`harnessx view` starts light: neither importing the viewer nor serving its pages loads the model
layer (LiteLLM, the model client), scipy or the search's certification; its first page costs well
under a second of CPU (CPU time, not wall: the bound holds on a loaded machine); and each
trajectory's raw file downloads from its page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harnessx.viewer import create_app
from tests.viewer_fixtures import agent_abandon_key, make_search

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("litellm", "harnessx.models.client", "scipy", "harnessx.search.certify", "harnessx.search.loop",
         "harnessx.agent.runner", "optuna", "mlflow", "matplotlib")

# In a fresh interpreter: start the real server (the CLI's make_server path) on a free loopback port,
# fetch each page the argument names over HTTP, then report the process's CPU time and what it imported.
PROBE = """
import json, sys, threading, time, urllib.request
from werkzeug.serving import make_server
from harnessx.viewer import create_app
runs, paths = sys.argv[1], sys.argv[2:]
server = make_server("127.0.0.1", 0, create_app(runs), threaded=True)
thread = threading.Thread(target=server.serve_forever)
thread.start()
cpu, status = [], []
for path in paths:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}{path}") as reply:
        reply.read()
        status.append(reply.status)
    cpu.append(time.process_time())
server.shutdown()
thread.join()
print(json.dumps({"cpu": cpu, "status": status, "modules": sorted(sys.modules)}))
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    runs = tmp_path_factory.mktemp("startup") / "runs"
    make_search(runs, rounds=1, proposals=2)
    return runs


def probe(runs: Path, *paths: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(runs), *paths], capture_output=True, text=True,
                         env=env, check=True, cwd=ROOT)
    return json.loads(out.stdout.splitlines()[-1])


def test_importing_the_viewer_loads_no_model_layer_scipy_or_search_internals():
    out = subprocess.run([sys.executable, "-c", "import sys, json, harnessx.viewer.app; print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    loaded = set(json.loads(out.stdout))
    assert not [m for m in HEAVY if m in loaded]


@pytest.mark.slow
def test_serving_every_page_of_a_search_loads_no_model_layer_and_the_first_costs_under_a_second(runs):
    run = runs / "demo"
    hashes = [json.loads(line)["hash"] for line in (run / "ledger.jsonl").read_text().splitlines()]
    key = agent_abandon_key(run)
    pages = ["/", "/runs/demo", f"/runs/demo/candidates/{hashes[-1]}", "/runs/demo/flips",
             f"/runs/demo/trajectories/{key}", f"/runs/demo/trajectories/{key}.jsonl", "/runs/demo/rollouts"]
    seen = probe(runs, *pages)
    assert seen["status"] == [200] * len(pages)
    assert not [m for m in HEAVY if m in seen["modules"]]
    assert seen["cpu"][0] < 1.0, f"interpreter start, server start and the first page took {seen['cpu'][0]:.2f} s of CPU"


def test_the_raw_trajectory_downloads_from_its_page_as_stored(runs):
    run = runs / "demo"
    key = agent_abandon_key(run)
    client = create_app(runs).test_client()
    page = client.get(f"/runs/demo/trajectories/{key}").get_data(as_text=True)
    assert f'href="/runs/demo/trajectories/{key}.jsonl"' in page
    reply = client.get(f"/runs/demo/trajectories/{key}.jsonl")
    stored = next((run / "rollouts").rglob(f"{key}.jsonl")).read_bytes()
    assert reply.status_code == 200 and reply.data == stored
    assert "attachment" in reply.headers["Content-Disposition"] and f"{key}.jsonl" in reply.headers["Content-Disposition"]
    assert all(json.loads(line)["kind"] for line in reply.get_data(as_text=True).splitlines())
    assert client.get("/runs/demo/trajectories/0123456789abcdef.jsonl").status_code == 404
    assert client.get("/runs/demo/trajectories/..%2Fconfig.jsonl").status_code == 404
