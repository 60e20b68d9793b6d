"""A search killed during R0 (before its first checkpoint) leaves its MLflow parent run RUNNING; on
--resume that run is reopened and finished, never left RUNNING and never duplicated."""

from __future__ import annotations

import asyncio

import pytest
from mlflow.tracking import MlflowClient

from harnessx.envs.toy import ToySuite
from harnessx.search import Search, SearchConfig
from harnessx.search import arena as arena_mod


class Killed(BaseException):
    """Nothing in the product catches it, as nothing survives a kill -9."""


def test_kill_during_r0_then_resume_reopens_the_parent_run(tmp_path, monkeypatch):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    cfg = SearchConfig.of(env="toy", model="sim/baseline", rounds=1, proposals=1, runs_dir=str(tmp_path / "runs"),
                       name="stale", tracking_uri=uri, concurrency=2)
    real = arena_mod.Arena.evaluate_on

    async def dies(self, harness, tasks):
        raise Killed()

    monkeypatch.setattr(arena_mod.Arena, "evaluate_on", dies)
    with pytest.raises(Killed):
        asyncio.run(Search(cfg, suite=ToySuite(2)).run())
    client = MlflowClient(uri)
    experiment = client.get_experiment_by_name("harnessx-search")
    parents = client.search_runs([experiment.experiment_id], filter_string="tags.`harnessx.run` = 'stale'")
    assert [r.info.status for r in parents] == ["RUNNING"]  # what a kill leaves behind
    assert not (tmp_path / "runs" / "stale" / "checkpoint.json").exists()

    monkeypatch.setattr(arena_mod.Arena, "evaluate_on", real)
    asyncio.run(Search(cfg, suite=ToySuite(2)).run(resume=True))
    runs = client.search_runs([experiment.experiment_id], filter_string="tags.`harnessx.run` = 'stale'")
    top = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert [r.info.run_id for r in top] == [parents[0].info.run_id]
    assert top[0].info.status == "FINISHED"
    assert all(r.info.status != "RUNNING" for r in runs)
