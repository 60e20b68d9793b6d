"""The `mlflow ui` command docs/search.md gives serves a search's runs: the test starts exactly that
command (its port swapped for a free loopback one) in the folder a search ran in, waits for the
server's own startup line (no sleep), finds the search's parent run and each candidate's run through
the API the runs page reads, opens the runs page in Chromium when it is installed, and stops the
server's process group by its id."""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import signal
import socket
import subprocess
import threading
import urllib.request
from pathlib import Path

import pytest
from toy_search import toy_search_in
from conftest import missing


DOC = Path(__file__).resolve().parent.parent / "docs" / "search.md"
STARTUP_BOUND_S = 900  # a bound on the server's import under a loaded CI machine, not a synchronisation


def documented_command() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- mlflow-ui-command -->\n```bash\n(.*?)```", text, re.S).group(1)
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 1, "the docs give one command"
    return shlex.split(lines[0])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_documented_command_names_one_worker_and_a_port():
    argv = documented_command()
    assert argv[:2] == ["mlflow", "ui"]
    assert argv[argv.index("--workers") + 1] == "1"  # several workers die under load (their health check)
    assert argv[argv.index("--backend-store-uri") + 1] == "sqlite:///mlruns/mlflow.db"  # the search's default store
    assert argv[argv.index("--port") + 1].isdigit()


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    return toy_search_in(tmp_path_factory.mktemp("ui"), "ui", n_sources=1, concurrency=3)


def _post(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def _get(base: str, path: str) -> tuple[int, str]:
    with urllib.request.urlopen(base + path, timeout=120) as response:
        return response.status, response.read().decode()


@pytest.mark.slow
def test_the_documented_mlflow_ui_serves_the_search_runs(searched):
    argv = documented_command()
    port = free_port()
    argv[argv.index("--port") + 1] = str(port)
    proc = subprocess.Popen(argv, cwd=searched, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)  # its own process group: the server and its job runner
    lines: queue.Queue = queue.Queue()
    log: list[str] = []
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout] + [lines.put(None)], daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    try:
        while True:  # the server's own startup line is the event we wait for
            line = lines.get(timeout=STARTUP_BOUND_S)
            assert line is not None, "mlflow ui exited before serving:\n" + "".join(log[-40:])
            log.append(line)
            if f"Uvicorn running on http://127.0.0.1:{port}" in line:
                break
        assert _get(base, "/health") == (200, "OK")
        status, page = _get(base, "/")
        assert status == 200 and "<html" in page.lower()  # the UI's page (its script renders the runs)
        with urllib.request.urlopen(base + "/ajax-api/2.0/mlflow/experiments/get-by-name?experiment_name="
                                    "harnessx-search", timeout=120) as response:
            experiment = json.loads(response.read())["experiment"]["experiment_id"]
        runs = _post(base, "/ajax-api/2.0/mlflow/runs/search", {"experiment_ids": [experiment], "max_results": 100})
        names = {r["info"]["run_name"] for r in runs["runs"]}
        ledger = [json.loads(x) for x in (searched / "runs/ui/ledger.jsonl").read_text().splitlines()]
        recorded = json.loads((searched / "runs/ui/mlflow.json").read_text())
        ids = {r["info"]["run_id"] for r in runs["runs"]}
        assert recorded["parent_run"] in ids and {row["mlflow_run_id"] for row in ledger} <= ids
        assert all(f"r{row['round']}-s{row['slot']}-{row['hash'][:8]}" in names for row in ledger)
        if missing("browser")[0] is None:  # the page lists the parent run (candidates fold under it)
            parent = next(r["info"]["run_name"] for r in runs["runs"] if r["info"]["run_id"] == recorded["parent_run"])
            _runs_page_in_chromium(base, experiment, parent)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the group we started: the CLI, uvicorn and the job runner
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with pytest.raises(OSError):  # nothing serves on the port any more
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def _runs_page_in_chromium(base: str, experiment: str, run_name: str) -> None:
    """The experiment's runs page, rendered by its own script in Debian's Chromium, lists the run."""
    from playwright.sync_api import sync_playwright

    from tests.test_viewer_browser import CHROMIUM, FLAGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{base}/#/experiments/{experiment}/runs", wait_until="domcontentloaded", timeout=0)
        page.get_by_text(run_name).first.wait_for(timeout=STARTUP_BOUND_S * 1000)
        browser.close()
