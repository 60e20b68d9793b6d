"""The progress display off a terminal (plain lines with the round, rollouts, ETA and cost), the line
per accepted move, and third-party INFO logs kept off stderr unless asked for."""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from harnessx.errors import InputError
from harnessx.formatting.cells import move_line
from harnessx.formatting.progress import ProgressConfig, RunProgress
from harnessx.logs import configure_logs, library_level

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def plain_progress(**config) -> tuple[RunProgress, io.StringIO, Clock]:
    out, clock = io.StringIO(), Clock()
    console = Console(file=out, force_terminal=False, width=80)
    return RunProgress(ProgressConfig("search", **config), console, clock), out, clock


def test_off_a_terminal_it_prints_a_line_per_round_and_per_tenth_with_eta_and_cost():
    progress, out, clock = plain_progress()
    assert not progress.live
    with progress:
        progress.plan(20, 0)
        progress.round(1)
        for i in range(20):
            clock.now += 3  # 3 s a rollout
            progress.advance(spent=0.01 * (i + 1))
    lines = out.getvalue().splitlines()
    assert lines[0] == "search: round 1 started, 0/20 rollouts, ETA ?, cost $0.0000"
    assert lines[1] == "search: round 1, 2/20 rollouts, ETA 0:00:54, cost $0.0200"  # 18 left x 3 s
    assert len(lines) == 1 + 10 + 1  # the round, each tenth, the end
    assert lines[-1] == "search: done: round 1, 20/20 rollouts in 0:01:00, cost $0.2000"


def test_without_a_planned_total_it_counts_and_gives_no_eta():
    progress, out, clock = plain_progress(heartbeat=60)
    with progress:
        clock.now += 61
        progress.advance(spent=0.5)
    assert out.getvalue().splitlines() == ["search: 1 rollouts, cost $0.5000", "search: done: 1 rollouts in 0:01:01, "
                                           "cost $0.5000"]


def test_a_slow_run_still_prints_a_line_a_minute():
    progress, out, clock = plain_progress(every=0.5, heartbeat=60)
    progress.plan(100, 0)
    for _ in range(3):
        clock.now += 61
        progress.advance()
    assert out.getvalue().splitlines() == ["search: 1/100 rollouts, ETA 1:40:39, cost $0.0000",
                                           "search: 2/100 rollouts, ETA 1:39:38, cost $0.0000",
                                           "search: 3/100 rollouts, ETA 1:38:37, cost $0.0000"]


def test_resumed_rollouts_do_not_count_towards_the_eta():
    progress, out, clock = plain_progress(every=1.0)
    progress.plan(40, 30)  # 30 came from the cache
    clock.now += 10
    progress.advance()
    assert progress.eta() == "0:01:30"  # 9 left at 10 s each, not at 10/31 s


def test_an_accepted_move_names_round_edit_objective_and_delta_with_n():
    row = {"round": 2, "edit": "self_check_wording=review", "accepted": True,
           "objective": {"name": "joint", "k": 7, "n": 12, "value": 7 / 12, "ci": [0.32, 0.807]}}
    line = move_line(row, {"k": 5, "n": 12, "value": 5 / 12})
    assert line == ("round 2: accepted self_check_wording=review: joint 7/12 58.3% [32.0, 80.7]; "
                    "Δ +16.7 pp vs the incumbent (n=12 vs 12)")
    mean = {**row, "mean_diff": 0.125, "objective": {"name": "kas", "k": 5.5, "n": 10, "value": 0.55, "kind": "mean"}}
    assert move_line(mean, {}).endswith("Δ +0.125 paired (n=10)")


@pytest.mark.slow
def test_search_prints_a_line_per_accepted_move(tmp_path):
    out = run_cli(tmp_path, "search", "--env", "retail", "--sources", "6", "--rounds", "2", "--proposals", "2",
                  "--accept", "greedy", "--no-mlflow", "--certify-split", "none", "--name", "g").stdout
    flat = " ".join(out.split())  # the line wraps at 80 columns
    assert re.search(r"round 2: accepted \S+: joint \d+/12 [^;]*; Δ \+\d+\.\d pp vs the incumbent \(n=12 vs 12\)",
                     flat), out


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("HARNESSX_LOG", "MLFLOW_LOGGING_LEVEL", "LITELLM_LOG")}
    env.update(PYTHONPATH=str(ROOT), COLUMNS="80")
    proc = subprocess.run([sys.executable, "-m", "harnessx.cli.main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    return proc


SEARCH = ("search", "--env", "toy", "--rounds", "0", "--certify-split", "none", "--name", "quiet")


@pytest.mark.slow
def test_mlflow_info_stays_off_stderr_unless_verbose(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    quiet = run_cli(tmp_path / "a", *SEARCH)  # a fresh MLflow store: it migrates its tables, at INFO
    assert "INFO" not in quiet.stderr, quiet.stderr
    loud = run_cli(tmp_path / "b", "--verbose", *SEARCH)
    assert re.search(r"INFO mlflow", loud.stderr), loud.stderr


def test_log_levels():
    environ: dict[str, str] = {}
    before = logging.root.manager.disable
    try:
        assert configure_logs(False, environ) == logging.WARNING and environ["MLFLOW_LOGGING_LEVEL"] == "WARNING"
        assert not logging.getLogger("mlflow.store.db.utils").isEnabledFor(logging.INFO)
        assert logging.getLogger("optuna").isEnabledFor(logging.WARNING)
        verbose: dict[str, str] = {}
        assert configure_logs(True, verbose) == logging.INFO and logging.root.manager.disable == logging.NOTSET
        assert verbose["HARNESSX_LOG"] == "info" and library_level(verbose) == logging.INFO
        assert library_level({"HARNESSX_LOG": "info"}) == logging.INFO and library_level({}) == logging.WARNING
        with pytest.raises(InputError, match="HARNESSX_LOG.*one of debug, info, warning, error"):
            configure_logs(False, {"HARNESSX_LOG": "loud"})
    finally:
        logging.disable(before)


def test_on_a_terminal_it_is_one_bar_with_round_eta_and_cost_and_lines_above_it():
    out, clock = io.StringIO(), Clock()
    console = Console(file=out, force_terminal=True, width=100, no_color=True)
    with RunProgress(ProgressConfig("search"), console, clock) as progress:
        progress.plan(4, 0)
        progress.round(1)
        progress.line("round 1: accepted x=1: joint 3/4 75.0%")
        for _ in range(4):
            clock.now += 2
            progress.advance(spent=0.25)
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out.getvalue())  # without the terminal's escapes
    assert "round 1: accepted x=1" in text
    assert re.search(r"search round 1 .*4/4 rollouts  ETA 0:00:00  \$0\.2500", text)
    assert "search: round" not in text  # no plain lines on a terminal


@pytest.mark.slow
def test_the_bar_never_counts_past_its_total_through_the_claim(tmp_path):
    """The claim's rollouts are paid after the search, outside the pre-flight's figure: they open their
    own phase (total = the search's rollouts + the claim's), so no progress line reads done > total."""
    out = run_cli(tmp_path, "search", "--env", "retail", "--sources", "6", "--rounds", "2", "--proposals", "2",
                  "--accept", "greedy", "--no-mlflow", "--name", "c").stdout
    flat = " ".join(out.split())
    assert "certifying the claim" in flat, out  # the claim ran (the search moved), so its phase is exercised
    counts = [(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+) rollouts", flat)]
    assert counts and all(done <= total for done, total in counts), counts
    assert counts[-1][0] == counts[-1][1], counts  # it ends full: the claim's total was the one it counted to
