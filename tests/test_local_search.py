"""A tiny search with the real local model: 2 rounds x 2 proposals on 4 blocked + 4 feasible toy
tasks, its trials recorded in Optuna and MLflow. Asserts the mechanics, never a success rate."""

from __future__ import annotations

import json

import pytest
import yaml

from harnessx.envs.toy import ToySuite
from harnessx.harness import load_preset
from harnessx.local.fewshot import tool_call_examples
from harnessx.search.explore import ExploreSettings

pytestmark = [pytest.mark.realmodel, pytest.mark.slow,
              pytest.mark.requires("local")]
ALL_MODES = ["error", "fabricated", "deferred_without_certified_action", "proceeded", "wrong_reason",
             "false_abstention", "wrong_result"]


class EightToyTasks(ToySuite):
    """4 feasible toy tasks and one blocked variant of each (traps and missing keys alternate)."""

    def __init__(self) -> None:
        super().__init__(n_sources=4)
        keep = lambda i, t: t.feasible or t.id.endswith("-trap" if i % 2 == 0 else "-missing")  # noqa: E731
        self._tasks = [t for t in self._tasks if keep(int(t.source_id.split("-")[1]), t)]


def space_file(tmp_path) -> str:
    r0 = (load_preset("A1").with_component("few_shot", tool_call_examples("chatml"))
          .with_switches(tool_format="text", max_steps=2, max_output_tokens=48))
    space = {"name": "local-tiny", "description": "R0 with text tool calls; one clause library, one switch.",
             "r0": {"components": r0.components, "switches": r0.switches.model_dump(mode="json")},
             "libraries": {"checks": {"component": "system_prompt", "addresses": ALL_MODES, "clauses": [
                 {"id": "verify", "text": "Before acting, check that what the task needs exists."},
                 {"id": "assess", "text": "Decide whether the task can be done before changing anything."},
                 {"id": "careful", "text": "Be careful and thorough."}]}},
             "switches": {"report": {"addresses": ALL_MODES, "params": {"end_report": [False, True]}}}}
    path = tmp_path / "space.yaml"
    path.write_text(yaml.safe_dump(space, sort_keys=False))
    return str(path)


async def test_tiny_search_records_trials_in_optuna_and_mlflow(tmp_path):
    import optuna
    from mlflow import MlflowClient
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    from harnessx.search import Search, SearchConfig

    uri = f"sqlite:///{tmp_path}/mlruns/mlflow.db"
    cfg = SearchConfig.of(objective="joint", env="toy", model="local/smollm2", rounds=2, proposals=2,
                       space=space_file(tmp_path), runs_dir=str(tmp_path / "runs"), tracking_uri=uri,
                       concurrency=2, name="local-tiny")
    suite = EightToyTasks()
    assert sum(t.feasible for t in suite.tasks("search")) == 4 and len(suite.tasks("search")) == 8
    result = await Search(cfg, suite=suite).run()

    rows = [json.loads(line) for line in (result.run_dir / "ledger.jsonl").read_text().splitlines()]
    looks = ExploreSettings().looks(2)  # the default rule's gated looks a round for --proposals 2 (the proposer
    slots = {r: [row["slot"] for row in rows if row["round"] == r] for r in (0, 1, 2)}  # may have fewer new edits)
    assert slots[0] == [0] and all(slots[r] == list(range(len(slots[r]))) and 1 <= len(slots[r]) <= looks
                                   for r in (1, 2))
    assert all(r["scorecard"] for r in rows) and rows[0]["rollouts"] == 8
    assert result.summary["simulated"] is False and result.summary["rollouts"] > 0

    study = optuna.load_study(study_name=cfg.run_name,
                              storage=JournalStorage(JournalFileBackend(str(result.run_dir / "optuna.log"))))
    trials = study.get_trials()
    assert len(trials) == len(rows) and {t.user_attrs["hash"] for t in trials} == {r["hash"] for r in rows}

    client = MlflowClient(tracking_uri=uri)
    runs = client.search_runs([client.get_experiment_by_name("harnessx-search").experiment_id])
    children = [r for r in runs if "mlflow.parentRunId" in r.data.tags]
    assert len(runs) - len(children) == 1 and len(children) == len(rows)
    assert all("joint" in child.data.metrics for child in children)
