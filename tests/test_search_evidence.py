"""What a search records about its edits, checked on one real search (retail, simulated agent, one round
of two proposals, greedy acceptance, MLflow on sqlite): the report names the accepted edit with its
evidence, the R0 -> selected diff, the lineage and the flips; the Optuna study points at the selected
trial and carries clause edits as categorical params; MLflow holds the candidates' rollouts as traces."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import optuna
import pytest
from optuna.distributions import CategoricalDistribution
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

from harnessx.comparison.flips import flips
from harnessx.comparison.run_trials import SearchRun
from harnessx.harness import load_preset
from harnessx.harness.model import diff
from harnessx.search.objectives import get_objective
from harnessx.search.space import load_space
from harnessx.search.tracking import OptunaLedger

ROOT = Path(__file__).resolve().parent.parent
TRACES = 4


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("evidence")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    cli = [sys.executable, "-m", "harnessx.cli.main"]
    uri = f"sqlite:///{tmp / 'mlruns' / 'mlflow.db'}"
    subprocess.run([*cli, "search", "--objective", "joint", "--rounds", "1", "--proposals", "2", "--accept", "greedy",
                    "--proposer", "rules", "--name", "d", "--tracking-uri", uri, "--mlflow-traces", str(TRACES)],
                   cwd=tmp, env=env, check=True, capture_output=True)
    out = subprocess.run([*cli, "report", "runs/d"], check=False, cwd=tmp, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = [json.loads(line) for line in (tmp / "runs/d/ledger.jsonl").read_text().splitlines()]
    return tmp, uri, rows


@pytest.mark.slow
def test_report_names_the_accepted_edit_with_diff_lineage_and_flips(searched):
    tmp, _, rows = searched
    accepted = [r for r in rows if r["accepted"] and r["round"]]
    assert accepted, "the simulated retail search accepts an edit in round 1"
    md = (tmp / "runs/d/report/report.md").read_text()
    page = (tmp / "runs/d/report/report.html").read_text()
    for row in accepted:
        assert f"| {row['round']} | {row['edit']} | yes | {row['stage']} |" in md
        assert row["edit"] in page
    run = SearchRun(tmp / "runs/d")
    r0, selected = run.resolve("R0"), run.resolve("selected")
    text = diff(r0.harness, selected.harness)
    assert text and text.splitlines()[0] in md and "<pre>" in page
    # lineage: the edit's line is attributed to its round and edit
    assert f"| {accepted[-1]['round']} | {accepted[-1]['edit']} |" in md.split("Lineage of the selected harness")[1]
    report = flips(run.trials(r0), run.trials(selected), get_objective("joint"), ("R0", "selected"))
    assert report.flips
    for family, (gained, lost) in report.by_family().items():
        assert f"| {family} | {gained} | {lost} |" in md
    assert f"{len(report.gained)} gained, {len(report.lost)} lost of {report.compared} trials compared" in md
    assert "Flipped trials" in page


@pytest.mark.slow
def test_optuna_study_points_at_the_selected_trial_and_records_clauses(searched):
    tmp, _, rows = searched
    study = optuna.load_study(study_name="d", storage=JournalStorage(JournalFileBackend(str(tmp / "runs/d/optuna.log"))))
    summary = json.loads((tmp / "runs/d/summary.json").read_text())
    trial = study.trials[study.user_attrs["selected_trial"]]
    assert study.user_attrs["selected_hash"] == summary["selected"]["hash"] == trial.user_attrs["hash"]
    assert trial.user_attrs["accepted"] and trial.user_attrs["round"] == summary["selected"]["round"]
    assert "selection_note" in study.user_attrs
    space = load_space("default")
    for name, library in space.libraries.items():
        dists = {t.distributions[f"clause:{name}"] for t in study.trials}
        assert dists == {CategoricalDistribution([*(c.id for c in library.clauses), "none"])}
    for name in space.distributions():  # integer switches too (see the importance test below)
        assert all(isinstance(t.distributions[name], CategoricalDistribution) for t in study.trials if name in t.params)
    edited = [r for r in rows if r["round"]]
    for row in edited:  # a clause edit shows as that library's param, R0 holds none of them
        library, clause = row["edit"].split("=") if "=" in row["edit"] else (None, None)
        if library in space.libraries:
            assert study.trials[row["optuna_trial"]].params[f"clause:{library}"] == clause
            assert study.trials[0].params[f"clause:{library}"] == "none"


def test_selection_note_when_optunas_best_is_not_the_selected_trial(tmp_path):
    study = optuna.create_study(direction="maximize")
    space = load_space("default")
    ledger = OptunaLedger(study, space)
    r0 = load_preset("A1")
    other = r0.with_component("system_prompt", r0.text("system_prompt") + "\nBe careful and thorough with the task.\n")
    base = {"slot": 0, "edit": "", "p_value": None, "p_adjusted": None, "ci": None, "mean_diff": None,
            "stage": "full", "reason": "", "mlflow_run_id": None, "parent": None}
    ledger.add({**base, "round": 0, "hash": r0.hash, "accepted": True, "objective": {"value": 0.5, "n": 10},
                "judged": {"diff": 0.0}}, r0)
    ledger.add({**base, "round": 1, "hash": other.hash, "accepted": False, "objective": {"value": 0.7, "n": 10},
                "judged": {"diff": 0.2}}, other)
    ledger.mark_selected(r0.hash, 0)
    assert study.best_trial.number == 1 and study.user_attrs["selected_trial"] == 0
    assert "trial 0" in study.user_attrs["selection_note"] and "best_trial 1" in study.user_attrs["selection_note"]
    assert study.trials[1].params["clause:prerequisite_checks"] == "be-careful"
    assert study.trials[0].params["clause:prerequisite_checks"] == "none"


def test_importance_ranks_the_clause_that_matters_not_a_switch_that_never_varied():
    """25 candidates whose value depends on one library's clause, max_steps the same on all: Optuna's
    importance puts the clause first and gives the constant switch next to nothing."""
    rng = random.Random(0)
    study = optuna.create_study(direction="maximize")
    space = load_space("default")
    ledger = OptunaLedger(study, space)
    library = space.libraries["prerequisite_checks"]
    base = {"slot": 0, "edit": "", "p_value": None, "p_adjusted": None, "ci": None, "mean_diff": None,
            "stage": "full", "reason": "", "mlflow_run_id": None, "parent": None, "accepted": False}
    for number in range(25):
        clause = rng.choice(library.clauses)
        harness = library.apply(load_preset("A1"), clause)
        value = 0.5 + (0.2 if clause.id == "verify-prerequisites" else 0.0) + rng.gauss(0, 0.02)
        ledger.add({**base, "round": number, "hash": harness.hash, "objective": {"value": value, "n": 10},
                    "judged": {"diff": value - 0.5}}, harness)
    assert len({t.params["max_steps"] for t in study.trials}) == 1
    importance = optuna.importance.get_param_importances(
        study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0))
    assert next(iter(importance)) == "clause:prerequisite_checks" and importance["max_steps"] < 0.1


@pytest.mark.slow
def test_mlflow_holds_each_candidates_rollouts_as_traces_with_spans_and_scores(searched):
    import mlflow
    from mlflow import MlflowClient

    tmp, uri, rows = searched
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("harnessx-search")
    before = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(uri)
    try:
        for row in rows:
            traces = mlflow.search_traces(locations=[experiment.experiment_id], run_id=row["mlflow_run_id"],
                                          return_type="list")
            assert len(traces) == TRACES
            assert client.get_run(row["mlflow_run_id"]).data.tags["harnessx.traces"] == f"{TRACES} of {TRACES}"
            scores = {json.loads(line)["key"]: json.loads(line)
                      for line in (tmp / f"runs/d/scores/{row['hash']}.jsonl").read_text().splitlines()}
            for trace in traces:
                tags = trace.info.tags
                assert tags["harnessx.hash"] == row["hash"] and tags["harnessx.round"] == str(row["round"])
                score = scores[tags["harnessx.rollout"]]
                assert (tags["harnessx.task"], tags["harnessx.seed"]) == (score["task_id"], str(score["seed"]))
                kinds = {s.span_type for s in trace.data.spans}
                assert {"AGENT", "CHAT_MODEL", "TOOL"} <= kinds
                feedback = {a.name: a.value for a in trace.info.assessments}
                success = score["solved"] if score["feasible"] else score["strict_sa"]
                assert feedback["success"] is bool(success)
    finally:
        mlflow.set_tracking_uri(before)
