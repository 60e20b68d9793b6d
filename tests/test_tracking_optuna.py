"""The Optuna study tells the search's story: every judged candidate is a COMPLETE trial whose value is
its paired difference from the incumbent on the tasks it was judged on (comparable across trials,
screened or not), with its difference at each rung as intermediate values and the real start and end
of its judging, so the dashboard's history, intermediate values, timeline and importance have data."""

from __future__ import annotations

import asyncio
import json
import random

import optuna
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

from harnessx.envs.toy import ToySuite
from harnessx.harness import load_preset
from harnessx.search import Search, SearchConfig
from harnessx.search.space import load_space
from harnessx.search.tracking import OptunaLedger


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    runs = tmp_path_factory.mktemp("optuna") / "runs"
    config = SearchConfig.of(objective="joint", env="toy", rounds=2, proposals=2, runs_dir=str(runs), name="o",
                             tracking_uri=None, concurrency=4, accept="paired", proposer="rules")
    asyncio.run(Search(config, suite=ToySuite(n_sources=8)).run())
    run = runs / "o"
    storage = JournalStorage(JournalFileBackend(str(run / "optuna.log")))
    study = optuna.load_study(study_name=optuna.get_all_study_names(storage)[0], storage=storage)
    return study, [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_every_candidate_is_a_complete_trial_valued_by_its_paired_difference(searched):
    study, ledger = searched
    assert len(study.trials) == len(ledger)
    for row in ledger:
        trial = study.trials[row["optuna_trial"]]
        assert trial.state == TrialState.COMPLETE and trial.value == pytest.approx(row["judged"]["diff"])
        assert trial.user_attrs["hash"] == row["hash"]
    assert study.trials[0].value == 0.0  # R0 against itself
    assert "minus incumbent" in study.metric_names[0]
    history = [t.value for t in study.get_trials(states=(TrialState.COMPLETE,))]
    assert len(history) == len(ledger)  # the dashboard's history has every candidate


@pytest.mark.slow
def test_trials_have_real_durations_and_a_value_per_rung(searched):
    study, ledger = searched
    for row in ledger:
        trial = study.trials[row["optuna_trial"]]
        assert trial.duration is not None and trial.duration.total_seconds() > 0
        steps = sorted(trial.intermediate_values)
        assert steps and steps[-1] == row["judged"]["tasks"]
        assert trial.intermediate_values[steps[-1]] == pytest.approx(trial.value)
    raced = [study.trials[r["optuna_trial"]] for r in ledger if r["round"] > 0]
    assert any(len(t.intermediate_values) > 1 for t in raced)  # smoke, race and full rungs
    starts = sorted(t.datetime_start for t in study.trials)
    assert starts[0] < starts[-1]  # rounds follow each other on the timeline


rung_rows = st.fixed_dictionaries({
    "tasks": st.integers(1, 128),
    "rungs": st.dictionaries(st.integers(1, 128).map(str), st.floats(-1, 1), max_size=4),
    "diff": st.one_of(st.none(), st.floats(-1, 1)),
})


@settings(max_examples=30, deadline=None)
@given(judged=rung_rows, of=st.integers(1, 128))
def test_a_trial_carries_its_ledger_row_s_difference_rungs_and_subset(judged, of):
    judged = {**judged, "of": max(of, judged["tasks"]), "screened": judged["tasks"] < of, "matched": judged["tasks"],
              "candidate": None, "incumbent": None}
    study = optuna.create_study(direction="maximize")
    ledger = OptunaLedger(study, load_space("default"))
    harness = load_preset("A1")
    row = {"round": 1, "slot": 0, "hash": harness.hash, "parent": "0" * 16, "edit": "e", "accepted": False,
           "p_value": None, "p_adjusted": None, "ci": None, "mean_diff": None, "stage": "race", "reason": "",
           "mlflow_run_id": None, "objective": {"name": "joint", "k": 1, "n": 2, "value": 0.5}, "judged": judged,
           "started": "2026-01-01T00:00:00.000+00:00", "finished": "2026-01-01T00:00:02.500+00:00"}
    number = ledger.add(row, harness)
    trial = study.trials[number]
    if judged["diff"] is None:  # nothing the two share: no value to rank, shown as failed, never as 0
        assert trial.state == TrialState.FAIL and trial.value is None
    else:
        assert trial.state == TrialState.COMPLETE and trial.value == judged["diff"]
    assert trial.intermediate_values == {int(k): v for k, v in judged["rungs"].items()}
    assert trial.duration.total_seconds() == 2.5
    assert ("screened on" in trial.user_attrs["judged_on"]) == judged["screened"]


def test_importance_is_computed_from_every_trial_not_only_the_whole_split_ones():
    rng = random.Random(1)
    study = optuna.create_study(direction="maximize")
    space = load_space("default")
    ledger = OptunaLedger(study, space)
    library = space.libraries["prerequisite_checks"]
    for number in range(20):
        clause = rng.choice(library.clauses)
        harness = library.apply(load_preset("A1"), clause)
        gain = (0.2 if clause.id == "verify-prerequisites" else -0.1) + rng.gauss(0, 0.02)
        screened = gain < 0  # the losers raced out on 16 of 64 tasks
        row = {"round": number, "slot": 0, "hash": harness.hash, "parent": "0" * 16, "edit": clause.id,
               "accepted": False, "p_value": None, "p_adjusted": None, "ci": None, "mean_diff": gain,
               "stage": "smoke" if screened else "full", "reason": "", "mlflow_run_id": None,
               "objective": {"name": "joint", "k": 1, "n": 2, "value": 0.5},
               "judged": {"tasks": 16 if screened else 64, "of": 64, "screened": screened, "diff": gain,
                          "rungs": {"16": gain}}}
        ledger.add(row, harness)
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    importance = optuna.importance.get_param_importances(study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0))
    assert next(iter(importance)) == "clause:prerequisite_checks"
