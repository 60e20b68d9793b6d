"""The same answer wherever rollouts run: with the simulated agent (fixed per-call latency) and a
fixed seed, a search on one process, on Ray with 4 workers, and with 2 `harnessx worker` processes
on PostgreSQL selects the same harness with the same ledger; and each of the last two is an
interrupted search (1 round) resumed to the full 2 rounds in its own mode."""

from __future__ import annotations

import asyncio
import json

import pytest

from harnessx.search import Search, SearchConfig
from harnessx.search.explore import ExploreSettings
from scale_services import answered, fixed_latency_model, pg_databases, pg_url, ray_local, workers  # noqa: F401

VOLATILE = {"mlflow_run_id", "started", "finished"}  # MLflow is off, the clock differs; every other field must match


def _search(config: SearchConfig, resume: bool = False):
    return asyncio.run(Search(config).run(resume=resume))


def _ledger(result) -> list[dict]:
    rows = [json.loads(line) for line in (result.run_dir / "ledger.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if k not in VOLATILE} for row in rows]


def _summary(result) -> dict:
    s = result.summary
    # (model_calls counts the calls paid by this invocation, so a resumed run has fewer)
    return {"selected": s["selected"], "r0": s["r0"], "curve": s["curve"], "rollouts": s["rollouts"],
            "accepted_rounds": s["accepted_rounds"], "stop_reason": s["stop_reason"]}


@pytest.mark.slow
def test_one_process_ray_and_postgres_workers_select_the_same_harness_with_the_same_ledger(
        tmp_path, pg_url, ray_local):
    # each mode in its own runs folder: a shared one would serve the later modes from the first one's
    # rollout cache (every command shares `<runs dir>/cache`) and run nothing on Ray or the workers
    base = dict(objective="joint", env="toy", model=fixed_latency_model(tmp_path), rounds=2, proposals=2, seed=0,
                tracking_uri=None)
    one = _search(SearchConfig.of(**base, name="one", runs_dir=str(tmp_path / "runs-one")))

    ray_cfg = dict(base, name="ray", executor="ray", workers=4, runs_dir=str(tmp_path / "runs-ray"))
    _search(SearchConfig.of(**{**ray_cfg, "rounds": 1}))                 # interrupted after round 1 ...
    on_ray = _search(SearchConfig.of(**ray_cfg), resume=True)           # ... resumed on Ray to round 2

    pg_cfg = dict(base, name="pg", executor="queue", storage=pg_url, runs_dir=str(tmp_path / "runs-pg"))
    first = _search(SearchConfig.of(**{**pg_cfg, "rounds": 1, "workers": 1}))  # the search works its own queue
    procs = workers(2, str(tmp_path / "runs-pg" / "pg"))
    try:                                                             # resumed: it only decides; 2 workers run
        on_pg = _search(SearchConfig.of(**{**pg_cfg, "workers": 0}), resume=True)
        outputs = [w.communicate()[0] for w in procs]  # they stop once the search is done
    finally:
        for w in procs:
            if w.poll() is None:
                w.kill()
    counts = [answered(o) for o in outputs]

    assert on_ray.summary["selected"]["hash"] == one.summary["selected"]["hash"] == on_pg.summary["selected"]["hash"]
    assert _ledger(on_ray) == _ledger(one) == _ledger(on_pg)
    assert _summary(on_ray) == _summary(one) == _summary(on_pg)
    assert len(_ledger(one)) == 1 + 2 * ExploreSettings().looks(2)  # R0 + 2 rounds of the default's gated looks
    assert all(w.returncode == 0 for w in procs)
    # every rollout of round 2 ran on the two workers, each exactly once
    assert sum(counts) == on_pg.summary["rollouts"] - first.summary["rollouts"] > 0
