"""The how-to pages' worked examples (docs/howto/examples/*.py, included verbatim in the pages) run
through their seams and, by import path (no registration, no edit of HarnessX), through the CLI: the
calendar environment lists its tasks and evaluates a harness with `--env calendar_env:CalendarSuite`;
the `margin` acceptance rule runs a search with `--accept margin_rule:MarginRule --alpha`; the `checklist` proposer runs a search from Python, whose
run `harnessx export` then reads. If a seam changes under an example, this file fails."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from typer.testing import CliRunner

import harnessx
from harnessx.envs.toy import ToySuite
from harnessx.tasks import ToolCall
from harnessx.tools import AbandonSpec

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "howto" / "examples"
sys.path.insert(0, str(EXAMPLES))

from calendar_env import CalendarSuite  # noqa: E402
from checklist_proposer import CHECKLIST, ChecklistProposer  # noqa: E402
from margin_rule import MarginRule  # noqa: E402


def cli(*args: str):
    from harnessx.cli.main import app

    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


CALENDAR = "calendar_env:CalendarSuite"  # importable: the examples folder is on sys.path


def episode(task, calls):
    env = CalendarSuite().make_env()

    async def run():
        start = await env.reset(task, AbandonSpec(mode="tool"))
        outcomes = [await env.execute(call) for call in calls]
        reward = await env.verify()
        await env.cleanup()
        return start, outcomes, reward

    return asyncio.run(run())


def test_the_calendar_fills_the_environment_seam_and_its_verifier_tells_right_from_wrong():
    suite = CalendarSuite()
    assert isinstance(suite, harnessx.Suite) and isinstance(suite.make_env(), harnessx.Environment)
    by_id = {t.id: t for t in suite.tasks()}
    assert len(by_id) == len(suite.tasks("search")) + len(suite.tasks("heldout"))
    feasible, trap, missing = by_id["cal-1"], by_id["cal-1-held"], by_id["cal-1-noroom"]
    _, outcomes, reward = episode(feasible, feasible.reference.actions)
    assert reward == 1.0 and not any(c.forbidden for o in outcomes for c in o.state_changes)
    start, outcomes, reward = episode(trap, trap.reference.actions)  # booking over the held hour
    assert not start.evidence and outcomes[0].evidence and "maintenance" in outcomes[0].observation
    assert reward == 0.0 and outcomes[1].state_changes[0].forbidden
    start, _, reward = episode(missing, [])  # deferring at once leaves the calendar as it was
    assert start.evidence and reward == 1.0
    _, outcomes, _ = episode(feasible, [ToolCall(name="book", arguments={"room": "atlas", "hour": "noon"}),
                                        ToolCall(name="cancel", arguments={})])
    assert all(o.error for o in outcomes)  # bad arguments and unknown tools are observations, not crashes


def test_the_calendar_runs_through_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    listed = cli("tasks", "list", "--env", CALENDAR)
    assert listed.exit_code == 0, listed.output
    assert all(t.id in listed.output for t in CalendarSuite().tasks())
    shown = cli("tasks", "show", "cal-1-held", "--env", CALENDAR)
    assert shown.exit_code == 0 and "held for maintenance" in shown.output, shown.output
    ran = cli("eval", "--env", CALENDAR, "--harness", "A1", "--split", "search", "--out", "ev")
    assert ran.exit_code == 0, ran.output
    report = json.loads(next((tmp_path / "ev").glob("eval-search-*.json")).read_text())
    split, tasks = report["splits"]["search"], CalendarSuite().tasks("search")
    assert (split["n_feasible"], split["n_blocked"]) == (sum(t.feasible for t in tasks), sum(not t.feasible for t in tasks))
    joint = split["harnesses"]["A1"]["metrics"]["joint"]
    assert (joint["n"], joint["excluded"]) == (len(tasks), 0)  # every rollout scored, none excluded


def test_the_margin_rule_runs_through_the_cli_with_its_alpha(tmp_path):
    ran = cli("search", "--env", "toy", "--accept", "margin_rule:MarginRule", "--alpha", "0.2", "--rounds", "1", "--proposals", "2",
              "--name", "m", "--runs-dir", str(tmp_path), "--no-mlflow")
    assert ran.exit_code == 0, ran.output
    assert "accept=margin" in ran.output
    rows = [json.loads(line) for line in (tmp_path / "m" / "ledger.jsonl").read_text().splitlines()]
    judged = [r for r in rows if r["round"] == 1]
    assert len(judged) == 2 and all("< 0.2" in r["reason"] for r in judged)


def test_the_checklist_proposer_and_margin_rule_search_from_python_and_export_through_the_cli(tmp_path):
    config = harnessx.SearchConfig.of(env="toy", rounds=2, proposals=2, runs_dir=str(tmp_path), tracking_uri=None,
                                      name="checklist")
    rule = MarginRule(alpha=0.05, margin=0.05)
    result = asyncio.run(harnessx.Search(config, suite=ToySuite(n_sources=20), proposer=ChecklistProposer(),
                                         acceptance=rule).run())
    judged = [r for r in result.ledger if r["round"] > 0]
    assert judged and all(r["edit"].removeprefix("checklist=") in CHECKLIST for r in judged)
    assert len({r["edit"] for r in judged}) == len(judged)  # never the same edit twice
    for row in judged:
        diff, p = row["mean_diff"] or 0.0, row["p_value"] if row["p_value"] is not None else 1.0
        if row["accepted"]:
            assert diff >= rule.margin and p < rule.alpha
        else:
            assert bool(row.get("undecided")) == (diff > 0)  # a positive gain short of the bars is not refuted
    assert sum(r["accepted"] for r in judged if r["round"] == 1) <= 1
    out = tmp_path / "selected.yaml"
    exported = cli("export", str(tmp_path / "checklist"), "--out", str(out))
    assert exported.exit_code == 0, exported.output
    selected = harnessx.Harness.load(out)
    assert selected.hash == result.summary["selected"]["hash"]
