"""`--accept default` with `design=window` (a design measured beside the shipped one, not the default):
every round judges on one blind window, and the selected harness is still reported on the whole split,
like R0, so the summary never compares a harness on a few tasks with R0 on all of them."""

from __future__ import annotations

import asyncio

import pytest

from harnessx.envs.toy import ToySuite
from harnessx.search import Search, SearchConfig, make_acceptance

SUITE = ToySuite(n_sources=8)  # 24 tasks: a window of 8 is a third of the split


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """One window search, read by both tests."""
    config = SearchConfig.of(objective="joint", env="toy", model="sim/baseline", rounds=4, proposals=3, seed=1,
                             runs_dir=str(tmp_path_factory.mktemp("window") / "runs"), tracking_uri=None,
                             concurrency=4, name="w")
    rule = make_acceptance("default", design="window", screen=8, move_p=0.6)  # one flip (p = 0.5) moves
    return asyncio.run(Search(config, suite=SUITE, acceptance=rule).run())


def test_a_window_search_judges_on_windows_and_reports_the_selected_on_the_whole_split(result):
    n = len(SUITE.tasks("search"))
    proposals = [row for row in result.ledger if row["parent"]]
    assert proposals and all(row["stage"] == f"window 8/{n} tasks" for row in proposals)
    moved = [row for row in proposals if row["accepted"]]
    assert moved, "the toy world offers gains a window shows"
    assert result.summary["selected"]["hash"] == moved[-1]["hash"]
    r0, selected = result.r0.scorecard.joint, result.selected.scorecard.joint
    assert selected.n == r0.n == n  # judged on 8 tasks a round, reported on all of them


def test_optuna_names_a_window_search_s_selection_with_its_difference_on_the_window(result):
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    from optuna.trial import TrialState

    storage = JournalStorage(JournalFileBackend(str(result.run_dir / "optuna.log")))
    study = optuna.load_study(study_name=optuna.get_all_study_names(storage)[0], storage=storage)
    selected = next(r for r in reversed(result.ledger) if r["accepted"])
    trial = study.trials[study.user_attrs["selected_trial"]]
    assert trial.user_attrs["hash"] == selected["hash"] == result.summary["selected"]["hash"]
    assert trial.state == TrialState.COMPLETE and trial.value == selected["judged"]["diff"]
    assert selected["judged"]["screened"] and trial.user_attrs["judged_on"].startswith("screened on 8 of")
