"""SIGINT during a search: in-flight rollouts are cancelled, the MLflow parent run is closed as KILLED,
the exact --resume command is printed, and resuming finishes the search."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from waits import Stopwatch, exited, until

REPO = Path(__file__).resolve().parents[2]
SLOW_PROFILE = "name: slow\nextends: baseline\nlatency: {dist: fixed, mean_s: 0.03}\n"


@pytest.mark.slow
def test_sigint_kills_the_mlflow_run_prints_the_resume_command_and_resume_finishes(tmp_path):
    (tmp_path / "slow.yaml").write_text(SLOW_PROFILE)
    uri = f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}"
    args = [sys.executable, "-m", "harnessx.cli.main", "search", "--env", "toy", "--model", "sim/slow.yaml",
            "--proposals", "1", "--concurrency", "2", "--tracking-uri", uri, "--name", "intr"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    log = tmp_path / "output.log"
    with log.open("w") as sink:
        # 40 rounds: the search cannot finish between the checkpoint and the signal however the machine's
        # load shares time between this test and it (2 rounds did, under load, and exited 0)
        proc = subprocess.Popen(args + ["--rounds", "40"], cwd=tmp_path, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                text=True)
    # R0 checkpointed (however long imports and R0 take on this machine), then interrupt mid-round
    checkpoint = tmp_path / "runs" / "intr" / "checkpoint.json"
    to_r0 = Stopwatch()
    to_r0.time(lambda: until(checkpoint.is_file, unless=exited(proc, "R0 was checkpointed", log)))
    proc.send_signal(signal.SIGINT)
    try:  # stopping is far less work than starting and running R0: 10x that is stuck, not slow
        proc.wait(timeout=to_r0.bound(10))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"still running {to_r0.bound(10):.0f} s after SIGINT (R0 took {to_r0.seconds[0]:.0f} s): "
                             f"{log.read_text()[-3000:]}") from None
    out = log.read_text()
    assert proc.returncode == 130, out
    assert "search: done" not in out, out
    assert "--resume" in out and "harnessx search --env toy" in out and "Traceback" not in out
    assert "was never awaited" not in out, out  # in-flight rollouts are cancelled cleanly

    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    [experiment] = [e for e in client.search_experiments() if e.name == "harnessx-search"]
    parents = [r for r in client.search_runs([experiment.experiment_id]) if "mlflow.parentRunId" not in r.data.tags]
    assert [r.info.status for r in parents] == ["KILLED"]

    done = subprocess.run(args + ["--rounds", "2", "--resume"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    parents = [r for r in client.search_runs([experiment.experiment_id]) if "mlflow.parentRunId" not in r.data.tags]
    assert [r.info.status for r in parents] == ["FINISHED"]
