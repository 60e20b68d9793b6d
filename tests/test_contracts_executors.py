"""Contract every registered executor must meet (the list is read from `harnessx.executors.EXECUTORS`,
so a new executor is tested here without editing this file): a small search run through it writes
the same ledger, selects the same harness and spends the same rollouts as the in-process `asyncio`
executor. An executor that needs a service gets it from its fixture (`ray`: a private local Ray;
`queue`: a fresh PostgreSQL database, the search working its own queue), which skips, or fails under
CI's HARNESSX_REQUIRE_*, when the service is missing."""

from __future__ import annotations

import asyncio
import json

import pytest

from harnessx.executors import EXECUTORS
from harnessx.search import Search, SearchConfig
from scale_services import fixed_latency_model, pg_databases, pg_url, ray_local  # noqa: F401

VOLATILE = {"mlflow_run_id", "started", "finished"}  # MLflow is off, the clock differs; every other field must match
# what each executor needs beyond the search process: the fixture that provides it, and the options
SERVICES = {"ray": ("ray_local", lambda service: {"workers": 2}),
            "queue": ("pg_url", lambda url: {"storage": url, "workers": 2})}


def ledger_of(config: SearchConfig) -> tuple[list[dict], dict]:
    result = asyncio.run(Search(config).run())
    rows = [json.loads(line) for line in (result.run_dir / "ledger.jsonl").read_text().splitlines()]
    s = result.summary
    return ([{k: v for k, v in row.items() if k not in VOLATILE} for row in rows],
            {"selected": s["selected"]["hash"], "rollouts": s["rollouts"], "curve": s["curve"]})


# the scale-out executors (a Ray pool, the PostgreSQL queue) start their engines: in the slow set
@pytest.mark.parametrize("executor", [pytest.param(e, marks=pytest.mark.slow) if e in ("ray", "queue") else e
                                      for e in sorted(EXECUTORS)])
def test_every_executor_gives_the_in_process_ledger(executor, tmp_path, request):
    base = dict(objective="joint", env="toy", model=fixed_latency_model(tmp_path), rounds=1, proposals=2, seed=0,
                tracking_uri=None, accept="greedy")
    # each executor in its own runs folder: a shared rollout cache would serve the second one everything
    reference = ledger_of(SearchConfig.of(**base, name="ref", runs_dir=str(tmp_path / "runs-ref")))
    extra = {}
    if executor in SERVICES:
        fixture, options = SERVICES[executor]
        extra = options(request.getfixturevalue(fixture))
    ledger, summary = ledger_of(SearchConfig.of(**base, **extra, name=executor, executor=executor,
                                                runs_dir=str(tmp_path / f"runs-{executor}")))
    assert len(ledger) == 1 + 2
    assert (ledger, summary) == reference
