"""Inputs that cannot be scored fairly, state that must not be believed, and models that cannot
answer: a dead task model, judge or meta-model is a pre-flight error (exit 2, one line, nothing
written); a command whose every rollout is excluded stops with the reasons (exit 3), never a report
of nothing; harness and task files that cannot be scored fairly are refused at load (harness: one
line naming file, field and expectation, exit 2; task: listed as invalid with its reason); stored
files edited after they were written are refused with the file named and how to recover."""

from __future__ import annotations

import asyncio
import json

import litellm
import pytest
import yaml
from fault_server import OK, UNAUTHORIZED, FaultServer, closed_port
from test_terminal_env import BLOCKED, make_task
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.toy import ToySuite
from harnessx.errors import ModelCallError
from harnessx.models.providers import register_script
from harnessx.search import Search, SearchConfig
from harnessx.search.proposers import Proposer
from harnessx.viewer.store import Run


def revoked(messages, tools, metadata):
    """A provider that refuses every call with a non-transient error (a revoked key)."""
    raise litellm.AuthenticationError("key revoked", llm_provider="scripted", model="revoked")


REVOKED = register_script("revoked", revoked)


def dead() -> str:
    return f"http://127.0.0.1:{closed_port()}/v1"


def invoke(args: list[str]):
    return CliRunner().invoke(app, args)


def says(output: str, *needles: str) -> bool:
    """Every needle is in the output (compared without whitespace: the console wraps long lines)."""
    flat = "".join(output.split())
    return all("".join(n.split()) in flat for n in needles)


# --- a dead model: pre-flight, before anything is written ---------------------------------------------
@pytest.mark.parametrize("command", [
    ["kapro", "eval", "--model", "openai/x"],
    ["cf", "eval", "--model", "openai/x"],
    ["feasigen", "build", "--env", "retail", "--limit", "2", "--model", "openai/x"],
])
def test_a_dead_endpoint_stops_every_model_command_at_preflight(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    result = invoke([*command, "--api-base", dead(), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "pre-flight" in result.output and "openai/x" in result.output and "127.0.0.1" in result.output
    assert not out.exists() and not (tmp_path / "runs").exists()  # nothing written


def test_a_dead_judge_model_stops_eval_before_any_rollout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_BASE", dead())
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    result = invoke(["eval", "--harness", "A1", "--env", "toy", "--split", "search", "--judge-model", "openai/judge"])
    assert result.exit_code == 2, result.output
    assert "pre-flight" in result.output and "openai/judge" in result.output
    assert not (tmp_path / "runs").exists()


# --- every rollout excluded: exit 3 with the reasons, no report --------------------------------------
@pytest.mark.parametrize("command, name", [
    (["eval", "--harness", "A1", "--env", "toy", "--split", "search"], "eval"),
    (["kapro", "eval"], "kapro eval"),
    (["cf", "eval", "--condition", "none"], "cf eval"),
    (["feasigen", "build", "--env", "retail", "--limit", "2"], "feasigen build"),
])
def test_a_command_whose_every_rollout_is_excluded_exits_3_saying_why(command, name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = ["--model", REVOKED] if command[0] == "feasigen" else ["--model", REVOKED]
    out = ["--out", str(tmp_path / "out")]
    result = invoke([*command, *model, *out])
    assert result.exit_code == 3, result.output
    assert says(result.output, f"{name}: every one of the", "excluded (model_failure"), result.output
    assert says(result.output, "key revoked")  # the first failure's own reason
    assert not list(tmp_path.rglob("*.md")) and not list(tmp_path.rglob("cf-eval.json"))  # no report of nothing
    assert not list(tmp_path.rglob("suite.json")) and not list(tmp_path.rglob("kapro-eval.json"))


# --- the GEPA proposer's meta-model ---------------------------------------------------------------------
@pytest.fixture
def no_default_endpoint(monkeypatch):
    """A call that ignored --meta-api-base would go to a dead loopback port, never to the network."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_BASE", dead())


def _gepa(tmp_path, meta_api_base: str) -> SearchConfig:
    # three proposals: GEPA's round budget then outlasts its base evaluation and it reflects
    return SearchConfig.of(env="toy", model="sim/baseline", proposer="gepa", meta_model="openai/meta",
                        meta_api_base=meta_api_base, rounds=1, proposals=3, runs_dir=str(tmp_path / "runs"),
                        tracking_uri=None)


def test_a_dead_meta_model_stops_the_gepa_search_at_preflight_naming_it(tmp_path, no_default_endpoint):
    base = dead()
    with pytest.raises(ModelCallError) as info:
        asyncio.run(Search(_gepa(tmp_path, base), suite=ToySuite(2)).run())
    assert "openai/meta" in str(info.value) and base in str(info.value)
    assert not (tmp_path / "runs").exists()


def test_gepa_sends_its_reflection_to_the_meta_api_base_and_stops_with_its_failure(tmp_path, no_default_endpoint):
    with FaultServer([OK, UNAUTHORIZED]) as srv:  # answers the pre-flight, then refuses every reflection
        with pytest.raises(ModelCallError) as info:
            asyncio.run(Search(_gepa(tmp_path, srv.url), suite=ToySuite(2)).run())
        assert srv.requests >= 2  # the pre-flight and at least one reflection reached --meta-api-base
    text = str(info.value)
    assert "GEPA's reflection" in text and "auth" in text and "no new edit" not in text


# --- stale state: a stored file is checked against what was written -----------------------------------
class Interrupted(RuntimeError):
    pass


class KilledProposer(Proposer):
    """The rules proposer's name (so --resume's configuration matches), killed when it is asked."""

    name = "rules"

    def propose(self, ctx, k):
        raise Interrupted("killed mid-resume")


def _toy(tmp_path, **kw) -> SearchConfig:
    return SearchConfig.of(objective="joint", env="toy", model="sim/baseline", runs_dir=str(tmp_path / "runs"),
                        tracking_uri=None, name="s", **{"rounds": 1, "proposals": 1, "proposer": "rules", **kw})


@pytest.fixture
def finished(tmp_path):
    result = asyncio.run(Search(_toy(tmp_path), suite=ToySuite(2)).run())
    return result.run_dir


def test_after_an_interrupted_resume_export_and_compare_refuse_the_old_selection(finished, tmp_path):
    with pytest.raises(Interrupted):
        asyncio.run(Search(_toy(tmp_path, rounds=2), suite=ToySuite(2), proposer=KilledProposer()).run(resume=True))
    assert Run(finished, "s", "search").status != "finished"  # the viewer no longer calls it finished
    for args in (["export", str(finished), "--out", str(tmp_path / "h.yaml")],
                 ["compare", str(finished), "--split", "search"]):
        result = invoke(args)
        assert result.exit_code == 2, result.output
        assert says(result.output, "checkpoint.json", "not finished", "--resume"), result.output
    assert not (tmp_path / "h.yaml").exists()
    asyncio.run(Search(_toy(tmp_path, rounds=2), suite=ToySuite(2)).run(resume=True))  # the recovery it names
    assert invoke(["export", str(finished), "--out", str(tmp_path / "h.yaml")]).exit_code == 0


def _edit_selected(run_dir, keep_hash: bool) -> None:
    path = run_dir / "selected.yaml"
    data = yaml.safe_load(path.read_text())
    data["components"]["system_prompt"] = data["components"].get("system_prompt", "") + " Always answer yes."
    if not keep_hash:
        data.pop("hash")
    path.write_text(yaml.safe_dump(data, sort_keys=False))


@pytest.mark.parametrize("command", ["compare", "export"])
def test_a_selected_yaml_edited_with_its_hash_left_stale_is_refused(finished, tmp_path, command):
    _edit_selected(finished, keep_hash=True)
    args = {"compare": ["compare", str(finished), "--split", "search"],
            "export": ["export", str(finished), "--out", str(tmp_path / "h.yaml")]}[command]
    result = invoke(args)
    assert result.exit_code == 2, result.output
    assert says(result.output, "selected.yaml", "field 'hash'", "restore it"), result.output
    assert not (tmp_path / "h.yaml").exists() and not (finished / "compare").exists()


def test_a_selected_yaml_edited_without_its_hash_is_not_compared_as_the_search_s_selection(finished):
    _edit_selected(finished, keep_hash=False)
    result = invoke(["compare", str(finished), "--split", "search"])
    assert result.exit_code == 2, result.output
    assert says(result.output, "summary.json names"), result.output


def test_report_refuses_a_summary_whose_numbers_were_edited(finished):
    path = finished / "summary.json"
    summary = json.loads(path.read_text())
    summary["selected"]["scorecard"]["joint"]["k"] += 1  # k edited, its interval left as it was
    path.write_text(json.dumps(summary, indent=2))
    run = Run(finished, "s", "search")
    assert run.summary is None and "summary.json edited" in run.status  # the viewer shows neither number
    result = invoke(["report", str(finished), "--no-mlflow"])
    assert result.exit_code == 2, result.output
    assert says(result.output, "summary.json", "edited after harnessx wrote it", "--resume"), result.output
    assert not (finished / "report").exists()


# --- harness and task files that cannot be scored fairly: refused at load ----------------------------
HARNESSES = {
    "empty_stop_token": ({"switches": {"abandon_mode": "stop", "stop_token": ""}}, "switches.stop_token"),
    "blank_abandon_file": ({"switches": {"abandon_file": "  "}}, "switches.abandon_file"),
    "empty_abandon_tool": ({"switches": {"abandon_mode": "tool", "abandon_tool": ""}}, "switches.abandon_tool"),
    "spaced_abandon_tool": ({"switches": {"abandon_tool": "defer task"}}, "switches.abandon_tool"),
    "ten_mb_component": ({"components": {"system_prompt": "x" * 10_000_000}}, "components"),
}


@pytest.mark.parametrize("case", sorted(HARNESSES))
def test_a_harness_that_cannot_be_scored_fairly_is_one_line_naming_file_field_and_expectation(case, tmp_path,
                                                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    data, field = HARNESSES[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(yaml.safe_dump({"name": case, **data}))
    result = invoke(["eval", "--harness", str(path), "--env", "toy", "--split", "search"])
    assert result.exit_code == 2, result.output[-500:]
    assert result.output.startswith("error:") and len(result.output) < 600  # one line, not the 10 MB text
    assert says(result.output, f"{case}.yaml", f"field '{field}", "expected")
    assert not (tmp_path / "runs").exists()


def tb2_dir(root):
    """Four TB2 task dirs that cannot be scored fairly beside one that can (and the search source of a
    held-out variant)."""
    make_task(root, "good")
    make_task(root, "negative-timeout", "[agent]\ntimeout_sec = -5\n")
    (make_task(root, "empty-solve") / "solution" / "solve.sh").write_text("#!/bin/bash\n\n# nothing\n")
    make_task(root, "answer")  # a search task
    make_task(root, "contaminated", BLOCKED)  # held out, but its source `answer` is a search task
    stated = BLOCKED.replace('split = "heldout"', 'split = "search"').replace('source_id = "answer"',
                                                                            'source_id = "stated"')
    (make_task(root, "stated", stated) / "instruction.md").write_text(
        "Write 42 into /app/answer.txt. Note: locked.cfg is protected.\n")
    return root


def test_tb2_tasks_that_cannot_be_scored_fairly_are_listed_invalid_with_their_reason(tmp_path):
    root = tb2_dir(tmp_path / "tb2")
    result = invoke(["tasks", "list", "--env", "terminal", "--tasks-dir", str(root), "--split", "search"])
    assert result.exit_code == 0, result.output
    reasons = {"negative-timeout": ["agent.timeout_sec", "greater than 0"],
               "empty-solve": ["solution/solve.sh", "no command"],
               "contaminated": ["split = 'heldout'", "'search' task (answer)", "expected split = 'search'"],
               "stated": ["blocker.description", "stated in the task text", "evidence.where = 'observation'"]}
    for task_id, words in reasons.items():
        assert says(result.output, f"invalid task {task_id}", *words), (task_id, result.output)
    assert says(result.output, "2 valid, 4 invalid")


def test_a_duplicate_task_id_in_a_tau2_dir_is_refused_naming_it(shared_dir, tmp_path):
    source = shared_dir / "data" / "tau2-retail"
    root = tmp_path / "tau2"
    root.mkdir()
    for name in ("db.json", "policy.md", "split_tasks.json"):
        (root / name).symlink_to(source / name)
    tasks = json.loads((source / "tasks.json").read_text())
    (root / "tasks.json").write_text(json.dumps([*tasks, {**tasks[1], "user_scenario": tasks[0]["user_scenario"]}]))
    result = invoke(["tasks", "list", "--env", "retail", "--tau2-dir", str(root)])
    assert result.exit_code == 2, result.output[-500:]
    assert says(result.output, "tasks.json", f"[task {len(tasks)}]", f"field 'id' = {tasks[1]['id']!r}",
                "a unique id per task")


def test_the_viewer_names_an_edited_selected_yaml_instead_of_showing_it(finished):
    from harnessx.viewer.app import create_app

    _edit_selected(finished, keep_hash=True)
    page = create_app(finished.parent).test_client().get("/runs/s")
    assert page.status_code == 409
    assert says(page.get_data(as_text=True), "selected.yaml", "field &#39;hash&#39;")
