"""The search loop on the toy suite: ledger and run dir, Optuna and MLflow records, resume after a
kill mid-round (no finished rollout paid twice), refusals, and export reproducing its score."""

from __future__ import annotations

import asyncio
import json
import shutil

import optuna
import pytest
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

from harnessx.agent.runner import Runner
from harnessx.envs.toy import ToySuite
from harnessx.errors import InputError
from harnessx.evaluation import evaluate
from harnessx.harness import Harness
from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script
from harnessx.search import Search, SearchConfig
from harnessx.search.explore import ExploreSettings
from harnessx.search.export import export
from harnessx.search.reporter import Reporter
from harnessx.search.objectives import get_objective
from harnessx.sim import respond

CALLS = {"n": 0}


def counting_sim(messages, tools, metadata):
    """sim/baseline behind a counter: every paid model call passes here."""
    CALLS["n"] += 1
    return respond("baseline", messages, tools, metadata)


COUNTING = register_script("counting-sim", counting_sim)
LEDGER_FIELDS = {"round", "slot", "hash", "parent", "edit", "rationale", "scorecard", "objective", "accepted",
                 "p_value", "ci", "reason", "rollouts"}


def config(tmp_path, **changes) -> SearchConfig:
    base = dict(objective="joint", env="toy", model=COUNTING, rounds=2, proposals=3, runs_dir=str(tmp_path / "runs"),
                tracking_uri=None, concurrency=4)
    return SearchConfig.of(**{**base, **changes})


def run(cfg: SearchConfig, resume: bool = False, **kwargs):
    return asyncio.run(Search(cfg, suite=ToySuite(n_sources=4), **kwargs).run(resume=resume))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("search")
    CALLS["n"] = 0
    result = run(config(tmp), reporter=(starts := RoundStarts()))
    FRESH_BEFORE.update(starts.fresh_before)
    return tmp, result, CALLS["n"]


FRESH_BEFORE: dict[int, int] = {}  # round -> fresh rollouts the uninterrupted run paid before it started


class RoundStarts(Reporter):
    """Records how many fresh rollouts were paid before each round started."""

    def __init__(self):
        self.seen, self.fresh_before = 0, {}

    def rollout(self, result, cost):
        self.seen += 1

    def round_started(self, round_no):
        self.fresh_before[round_no] = self.seen


def test_run_dir_and_ledger(finished):
    tmp, result, _ = finished
    d = result.run_dir
    for name in ("config.json", "checkpoint.json", "ledger.jsonl", "optuna.log", "r0.yaml", "selected.yaml",
                 "summary.json"):
        assert (d / name).is_file(), name
    rows = [json.loads(line) for line in (d / "ledger.jsonl").read_text().splitlines()]
    looks = ExploreSettings().looks(3)  # the default rule judges 12 looks a round for --proposals 3 (its gate)
    assert looks == 12
    assert [(r["round"], r["slot"]) for r in rows] == [(0, 0)] + [(r, s) for r in (1, 2) for s in range(looks)]
    assert all(LEDGER_FIELDS <= row.keys() for row in rows)
    assert all((d / "harnesses" / f"{row['hash']}.yaml").is_file() for row in rows)
    assert len({row["hash"] for row in rows}) == len(rows)  # never re-evaluates a harness
    assert all(row["parent"] for row in rows[1:]) and rows[0]["accepted"]
    config_json = json.loads((d / "config.json").read_text())
    assert {"objective", "env", "model", "api_base", "proposer", "accept", "rounds", "proposals", "epochs", "seeds",
            "suite_hash", "search_space", "created"} <= config_json.keys()
    summary = json.loads((d / "summary.json").read_text())
    assert summary["simulated"] and summary["rounds_done"] == 2 and len(summary["curve"]) == 3
    assert summary["rollouts"] == sum(r["rollouts"] for r in rows) - 0 or summary["rollouts"] > 0


def test_optuna_trials_written(finished):
    _, result, _ = finished
    storage = JournalStorage(JournalFileBackend(str(result.run_dir / "optuna.log")))
    study = optuna.load_study(study_name="joint-toy", storage=storage)
    trials = study.get_trials()
    assert len(trials) == 1 + 2 * ExploreSettings().looks(3)  # R0 and 2 rounds of looks
    assert {"hash", "parent", "round", "accepted", "p_value", "mlflow_run_id"} <= trials[1].user_attrs.keys()
    assert study.user_attrs["simulated"] is True


def test_finished_run_resumes_for_free(finished):
    tmp, result, _ = finished
    CALLS["n"] = 0
    again = run(config(tmp), resume=True)
    assert CALLS["n"] == 0 and again.selected.harness.hash == result.selected.harness.hash


def test_refusals_leave_the_run_untouched(finished):
    tmp, result, _ = finished
    before = (result.run_dir / "config.json").read_text()
    with pytest.raises(InputError, match="already exists"):
        run(config(tmp))
    with pytest.raises(InputError, match="different configuration.*epochs"):
        run(config(tmp, epochs=2), resume=True)
    with pytest.raises(InputError, match="nothing to resume"):
        run(config(tmp, name="nope"), resume=True)
    assert (result.run_dir / "config.json").read_text() == before


class Killer(Reporter):
    """A reporter that interrupts the search after `after` fresh rollouts."""

    def __init__(self, after: int):
        self.after, self.seen = after, 0

    def plan(self, total, done):
        pass

    def note(self, text):
        pass

    def rollout(self, result, cost):
        self.seen += 1
        if self.seen == self.after:
            raise KeyboardInterrupt("killed mid-round")


class Fresh(Killer):
    """Records the rollouts a run actually pays for."""

    def __init__(self):
        super().__init__(after=-1)
        self.keys, self.calls = set(), 0

    def rollout(self, result, cost):
        if not result.cached:
            self.keys.add(result.key)
            self.calls += result.usage.calls


def test_resume_after_kill_mid_round_pays_no_finished_rollout(finished, tmp_path):
    _, _, uninterrupted_calls = finished
    cfg = config(tmp_path)
    CALLS["n"] = 0
    with pytest.raises(KeyboardInterrupt):
        run(cfg, reporter=Killer(after=FRESH_BEFORE[2] + 5))  # R0, round 1, then 5 rollouts into round 2
    paid_before = CALLS["n"]
    run_dir = tmp_path / "runs" / "joint-toy"
    assert json.loads((run_dir / "checkpoint.json").read_text())["round"] == 1
    finished_keys = {p.stem for p in (run_dir / "rollouts").glob("*/*.json")}
    fresh = Fresh()
    CALLS["n"] = 0
    result = run(cfg, resume=True, reporter=fresh)
    assert fresh.keys and not fresh.keys & finished_keys  # no finished rollout runs again
    assert CALLS["n"] == fresh.calls  # every paid call belongs to a rollout that had not finished
    in_flight = paid_before + CALLS["n"] - uninterrupted_calls  # calls of rollouts cut off by the kill
    assert 0 <= in_flight <= 4 * 15, (paid_before, CALLS["n"], uninterrupted_calls)
    assert result.summary["rounds_done"] == 2 and len(finished_keys) + len(fresh.keys) == result.summary["rollouts"]


def test_resume_restores_the_acceptance_rules_memory(tmp_path):
    """A rule with memory (`restore`) gets the resumed search's ledger before the next round."""
    from harnessx.search.explore import Explore

    class Recording(Explore):
        def restore(self, history):
            self.restored = [row["hash"] for row in history]
            super().restore(history)

    cfg = config(tmp_path, rounds=1, accept="default")
    first = run(cfg)
    rule = Recording()
    run(config(tmp_path, rounds=2, accept="default"), resume=True, acceptance=rule)
    assert rule.restored == [row["hash"] for row in first.ledger]


def test_export_reloads_and_reproduces_its_score(finished, tmp_path):
    _, result, _ = finished
    out = tmp_path / "harness.yaml"
    export(result.run_dir, out)
    harness = Harness.load(out)
    p = harness.provenance
    assert p["search"] == "joint-toy" and p["model"] == COUNTING and p["simulated"] is True
    suite = ToySuite(n_sources=4)
    tasks = get_objective("joint").tasks(suite.tasks("search"))
    evaluation = asyncio.run(evaluate(Runner(suite, ModelClient(COUNTING)), harness, tasks, p["seeds"]))
    rate = evaluation.scorecard.objective("joint")
    assert (rate.k, rate.n) == (p["objective_value"]["k"], p["objective_value"]["n"])


def test_budget_cap_stops_cleanly(tmp_path):
    result = run(config(tmp_path, max_rollouts=30))
    assert result.summary["rollouts"] <= 30 and "budget" in result.summary["stop_reason"]
    assert (result.run_dir / "selected.yaml").is_file()


@pytest.mark.slow
def test_mlflow_parent_and_nested_runs(tmp_path):
    from mlflow import MlflowClient

    uri = f"sqlite:///{tmp_path}/mlruns/mlflow.db"
    result = run(config(tmp_path, rounds=1, proposals=2, tracking_uri=uri))
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("harnessx-search")
    runs = client.search_runs([experiment.experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    children = [r for r in runs if "mlflow.parentRunId" in r.data.tags]
    assert len(parents) == 1 and len(children) == 1 + ExploreSettings().looks(2)  # R0 and the round's 8 looks
    assert parents[0].data.tags["harnessx.simulated"] == "true"
    child = children[0]
    assert {"objective", "strict_sa", "solve", "joint"} <= child.data.metrics.keys()
    artifacts = {a.path for a in client.list_artifacts(child.info.run_id)}
    assert {"harness.yaml", "per_task.json", "proposal"} <= artifacts
    rows = [json.loads(line) for line in (result.run_dir / "ledger.jsonl").read_text().splitlines()]
    assert {r["mlflow_run_id"] for r in rows} == {c.info.run_id for c in children}
    shutil.rmtree(tmp_path / "mlruns")
