"""Corrupted and broken inputs: tampered or corrupt rollout records, invalid task directories,
broken simulator profiles, torn ledgers and corrupt checkpoints, bogus store URIs, an agent's
pathological tool input, and evaluations that must not overwrite each other. Each is one clear
message naming the file (and field), or an excluded and named rollout; none is a silent number."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.cli.main import app
from harnessx.envs.retail.dispatch import run_tool
from harnessx.envs.terminal.suite import TerminalSuite
from harnessx.envs.toy import ToySuite
from harnessx.errors import InputError
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.search import Search, SearchConfig
from harnessx.search.rundir import RunDir
from harnessx.sim.profile import load_profile
from scripted_models import ORACLE
from test_terminal_env import make_task


def _eval(cache_dir: Path, model: str = "sim/baseline"):
    suite = ToySuite(n_sources=3)
    runner = Runner(suite, ModelClient(model), RolloutCache(cache_dir))
    return runner, asyncio.run(evaluate(runner, load_preset("A0"), suite.tasks(), [0, 1]))


# --- rollout records: the score comes from the authenticated trajectory -----------------------------
def test_a_reward_edited_in_the_result_file_is_tampered_excluded_and_named(tmp_path):
    _, first = _eval(tmp_path)
    solve = first.scorecard.solve
    failed = next(r for r in first.results if r.reward == 0.0)
    path = next(tmp_path.rglob(f"{failed.key}.json"))
    record = json.loads(path.read_text())
    record["reward"] = 1.0
    path.write_text(json.dumps(record))
    runner, second = _eval(tmp_path)
    assert runner.model_calls == 0 and second.scorecard.excluded == {"tampered": 1}
    assert second.scorecard.joint.k == first.scorecard.joint.k - (failed.reward or 0)  # never counted as a 1
    assert second.scorecard.joint.n == first.scorecard.joint.n - 1
    [named] = second.exclusions
    assert named["exclusion"] == "tampered" and str(path) in named["detail"] and "reward=1.0" in named["detail"]
    assert solve.n >= second.scorecard.solve.n


def test_an_edited_trajectory_event_breaks_the_chain_and_is_tampered(tmp_path):
    _, first = _eval(tmp_path)
    key = first.results[0].key
    traj = next(tmp_path.rglob(f"{key}.jsonl"))
    lines = traj.read_text().splitlines()
    event = json.loads(lines[-1])
    event["data"]["reward"] = 1.0 if event["data"].get("reward") != 1.0 else 0.0
    lines[-1] = json.dumps(event)
    traj.write_text("\n".join(lines) + "\n")
    _, second = _eval(tmp_path)
    assert second.scorecard.excluded == {"tampered": 1}
    assert "hash chain" in second.exclusions[0]["detail"]


@pytest.mark.parametrize("damage", ["truncate", "empty", "wrong_type"])
def test_a_corrupt_rollout_record_is_one_error_naming_the_file(tmp_path, damage):
    _, first = _eval(tmp_path)
    path = next(tmp_path.rglob(f"{first.results[0].key}.json"))
    text = path.read_text()
    path.write_text({"truncate": text[: len(text) // 2], "empty": "",
                     "wrong_type": json.dumps({**json.loads(text), "reward": "one"})}[damage])
    with pytest.raises(InputError) as info:
        _eval(tmp_path)
    assert str(path) in str(info.value) and "delete" in str(info.value)


# --- task directories that cannot be loaded ----------------------------------------------------------
@pytest.fixture
def tasks_dir(tmp_path):
    root = tmp_path / "tb2"
    make_task(root, "good", '[harnessx]\nsplit = "heldout"\n')
    (make_task(root, "no-toml") / "task.toml").unlink()
    make_task(root, "maybe", '[harnessx]\nfeasible = "maybe"\n')
    return root


def test_invalid_task_dirs_are_listed_under_every_split_never_moved_to_search(tasks_dir):
    suite = TerminalSuite(tasks_dir=str(tasks_dir))
    for split in ("search", "heldout"):
        invalid = {t.id for t in suite.tasks(split) if t.metadata.get("load_error")}
        assert invalid == {"no-toml", "maybe"}
    assert [t.id for t in suite.tasks("heldout") if not t.metadata.get("load_error")] == ["good"]


def test_tasks_list_shows_an_invalid_dir_with_its_load_error(tasks_dir):
    result = CliRunner().invoke(app, ["tasks", "list", "--env", "terminal", "--tasks-dir", str(tasks_dir)])
    assert result.exit_code == 0, result.output
    assert "invalid task no-toml" in result.output and "task.toml" in result.output
    assert "invalid task maybe" in result.output and "feasible" in result.output
    assert "1 valid, 2 invalid" in result.output


def test_an_invalid_task_is_excluded_by_name_with_file_field_and_expectation(tasks_dir):
    suite = TerminalSuite(tasks_dir=str(tasks_dir))
    broken = [t for t in suite.tasks("heldout") if t.metadata.get("load_error")]
    runner = Runner(suite, ModelClient(ORACLE))
    ev = asyncio.run(evaluate(runner, load_preset("A1"), broken, [0]))
    assert ev.scorecard.excluded == {"invalid_task": 2}
    details = {x["task_id"]: x["detail"] for x in ev.exclusions}
    assert "task.toml" in details["no-toml"] and "missing" in details["no-toml"]
    assert "feasible" in details["maybe"] and "maybe" in details["maybe"]
    assert all(runner.trajectory(r).first("error") is not None for r in ev.results)  # the failed record


# --- simulator profiles: a schema before the first rollout -------------------------------------------
PROFILES = {
    "bad_yaml": ("name: [x\n", "cannot parse"),
    "unknown_extends": ("name: x\nextends: nosuch\n", "unknown simulated profile 'nosuch'"),
    "self_loop": ("name: x\nextends: self_loop.yaml\n", "extends loop"),
    "string_rate": ("name: x\nextends: baseline\nrates: {act: high}\n", "rates.act"),
    "misspelled_rate": ("name: x\nextends: baseline\nrates: {false_abstian: 0.1}\n", "false_abstian"),
    "rate_above_one": ("name: x\nextends: baseline\nrates: {act: 4.0}\n", "not a probability"),
    "family_missing": ("name: x\nextends: baseline\nrates: {recognize: {infeasible: 0.5, ambiguous: 0.5}}\n",
                       "missing trap"),
}


@pytest.mark.parametrize("case", sorted(PROFILES))
def test_a_broken_profile_is_one_error_naming_the_file(tmp_path, case):
    text, words = PROFILES[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_profile(str(path))
    assert str(path) in str(info.value) and words in str(info.value)


def test_extends_resolves_against_the_profiles_own_folder(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "parent.yaml").write_text("name: parent\nextends: baseline\nrates: {act: 0.25}\n")
    (tmp_path / "sub" / "child.yaml").write_text("name: child\nextends: parent.yaml\n")
    monkeypatch.chdir(tmp_path)  # the working directory has no parent.yaml
    assert load_profile(str(tmp_path / "sub" / "child.yaml")).rates["act"] == 0.25


def test_a_search_with_a_broken_profile_stops_before_creating_anything(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(PROFILES["misspelled_rate"][0])
    cfg = SearchConfig.of(env="toy", model=f"sim/{path}", rounds=1, runs_dir=str(tmp_path / "runs"), tracking_uri=None)
    with pytest.raises(InputError, match="false_abstian"):
        asyncio.run(Search(cfg, suite=ToySuite(2)).run())
    assert not (tmp_path / "runs").exists()


# --- the run directory: torn ledger, corrupt checkpoint, bogus stores ---------------------------------
def _search(tmp_path, **kw) -> SearchConfig:
    return SearchConfig.of(objective="joint", env="toy", model="sim/baseline", rounds=1, proposals=1,
                        runs_dir=str(tmp_path / "runs"), tracking_uri=None, concurrency=4, **kw)


@pytest.fixture
def finished_run(tmp_path):
    cfg = _search(tmp_path)
    result = asyncio.run(Search(cfg, suite=ToySuite(2)).run())
    return cfg, result


def test_a_torn_ledger_tail_is_repaired_on_resume_and_nothing_changes(finished_run):
    cfg, result = finished_run
    ledger = result.run_dir / "ledger.jsonl"
    whole = ledger.read_text()
    ledger.write_text(whole + whole.splitlines()[-1][:37])  # a kill mid-append: no newline
    assert RunDir(result.run_dir).ledger() == [json.loads(x) for x in whole.splitlines()]
    resumed = asyncio.run(Search(cfg, suite=ToySuite(2)).run(resume=True))
    assert ledger.read_text() == whole and resumed.summary["selected"]["hash"] == result.summary["selected"]["hash"]
    assert resumed.summary["model_calls"] == 0


def test_a_corrupt_ledger_line_names_the_line(finished_run):
    cfg, result = finished_run
    ledger = result.run_dir / "ledger.jsonl"
    lines = ledger.read_text().splitlines()
    ledger.write_text("\n".join([lines[0][:20], *lines[1:]]) + "\n")
    with pytest.raises(InputError, match=r"ledger.jsonl:1: corrupt ledger line"):
        asyncio.run(Search(cfg, suite=ToySuite(2)).run(resume=True))


@pytest.mark.parametrize("damage", ["", "{\"round\": 1, \"cur", "[1, 2]"])
def test_a_corrupt_checkpoint_is_one_error_naming_it_and_the_recovery(finished_run, damage):
    cfg, result = finished_run
    (result.run_dir / "checkpoint.json").write_text(damage)
    with pytest.raises(InputError) as info:
        asyncio.run(Search(cfg, suite=ToySuite(2)).run(resume=True))
    assert "checkpoint.json" in str(info.value) and "delete checkpoint.json" in str(info.value)


@pytest.mark.parametrize("field, value, words", [
    ("storage", "bogus://x", "--storage"), ("storage", "not a url", "--storage"),
    ("tracking_uri", "bogus://x", "--tracking-uri"), ("tracking_uri", "mlruns", "file store"),
])
def test_a_bogus_store_uri_is_refused_before_the_run_dir_exists(tmp_path, field, value, words):
    cfg = _search(tmp_path, **{k: v for k, v in {field: value}.items() if k != "tracking_uri"})
    if field == "tracking_uri":
        cfg.tracking.tracking_uri = value
    with pytest.raises(InputError, match=words):
        asyncio.run(Search(cfg, suite=ToySuite(2)).run())
    assert not (tmp_path / "runs").exists()


# --- an agent's own input ------------------------------------------------------------------------------
def test_a_pathological_calculate_input_is_a_tool_error_returned_to_the_agent():
    ok, observation = run_tool(_tools(), "calculate", {"expression": "-" * 6000 + "1"})
    assert not ok and observation == "Error: expression too complex to evaluate"


def _tools():
    from harnessx.envs.retail.tools import RetailTools

    return RetailTools.__new__(RetailTools)  # calculate reads no store


# --- evaluations never overwrite each other -------------------------------------------------------------
def test_evals_that_differ_in_any_defining_setting_write_different_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = [["--epochs", "1"], ["--epochs", "2"], ["--epochs", "1", "--model", "sim/weak"]]
    for extra in runs:
        result = CliRunner().invoke(app, ["eval", "--harness", "A1", "--env", "toy", "--split", "search",
                                          "--resamples", "100", *extra])
        assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("runs/*/eval-search-*.json"))
    assert len(files) == 3 and len({json.dumps(json.loads(f.read_text())["evaluation_key"]) for f in files}) == 3


def test_eval_on_a_suite_without_heldout_tasks_needs_no_split_flag(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["eval", "--harness", "A1", "--env", "toy", "--resamples", "100"])
    assert result.exit_code == 0, result.output
    assert "search split (selection data" in result.output  # labelled for what it is, never as held-out
