"""Search spaces (schema errors name the file and field), the rules and llm proposers, and the CLI's
refusals of bad input (clear message, exit 2, nothing written)."""

from __future__ import annotations

import json

import dspy
import pytest
import yaml
from dspy.utils.dummies import DummyLM
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.errors import InputError
from harnessx.evaluation import Evaluation
from harnessx.scoring import Scorecard, TaskScore
from harnessx.search import RoundContext, get_objective, load_space
from harnessx.search.proposers.llm import LLMProposer
from harnessx.search.proposers.rules import RulesProposer


def write_space(tmp_path, **changes) -> str:
    data = yaml.safe_load(open(load_space().source))
    for dotted, value in changes.items():
        *parents, leaf = dotted.split(".")
        node = data
        for key in parents:
            node = node[key]
        node[leaf] = value
    path = tmp_path / "space.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_default_space_loads_and_edits():
    space = load_space()
    r0 = space.initial()
    assert r0.switches.abandon_mode == "auto" and space.targets_for("false_abstention") == ["feasible_guard"]
    library = space.libraries["self_check_wording"]
    edited = library.apply(r0, library.clauses[1])
    assert edited.switches.self_check == "end" and library.current(edited).id == library.clauses[1].id
    swapped = library.apply(edited, library.clauses[2])
    assert library.current(swapped).id == library.clauses[2].id and library.clauses[1].text not in swapped.text(
        "self_check_prompt")


@pytest.mark.parametrize("field, value, message", [
    ("libraries.few_shot.component", "sys_prompt", "libraries.few_shot.component"),
    ("libraries.few_shot.addresses", ["lazy"], "unknown failure mode"),
    ("switches.self_check.params", {"self_check": ["sometimes"]}, "switches.self_check.params"),
    ("switches.step_limit.params", {"max_steps": {"low": 40, "high": 10}}, "low <= high"),
    ("r0", "no-such-preset", "field 'r0'"),
])
def test_invalid_space_names_file_and_field(tmp_path, field, value, message):
    path = write_space(tmp_path, **{field: value})
    with pytest.raises(InputError) as err:
        load_space(path)
    assert path in str(err.value) and message in str(err.value)


def context(failures: dict[str, int], history=()) -> RoundContext:
    space = load_space()
    r0 = space.initial()
    scores = [TaskScore(task_id=f"t{i}", seed=0, feasible=mode in ("wrong_result", "false_abstention"), family=None,
                        source_id="s", split="search", valid=True, failure_mode=mode)
              for mode, n in failures.items() for i in range(n)]
    evaluation = Evaluation(r0, (), (0,), (), tuple(scores), Scorecard.from_scores(scores))
    return RoundContext(1, get_objective("joint"), space, r0, evaluation, tuple(history), lambda r: None)


def test_rules_edit_the_dominant_failure_and_never_repeat_a_rejection():
    ctx = context({"false_abstention": 9, "proceeded": 2})
    proposals = RulesProposer().propose(ctx, 3)
    assert [p.target for p in proposals] == ["feasible_guard"] * 3
    rejected = [{"round": 1, "slot": 0, "hash": proposals[0].harness.hash, "edit": proposals[0].edit,
                 "accepted": False}]
    again = RulesProposer().propose(context({"false_abstention": 9, "proceeded": 2}, rejected), 3)
    assert proposals[0].edit not in {p.edit for p in again} and len(again) == 3
    assert RulesProposer().propose(ctx, 3) == proposals  # a pure function of the context (resume)


def test_rules_switch_edits_come_from_the_sampler():
    proposals = RulesProposer().propose(context({"error": 5}), 3)
    assert any(p.target == "step_limit" and p.harness.switches.max_steps != 15 for p in proposals)


def test_llm_proposer_validates_typed_output_and_uses_distinct_rollout_ids():
    good = {"component": "system_prompt", "new_text": "Check prerequisites before acting.",
            "switches": {"self_check": "end"}, "hypothesis": "prerequisite checks stop proceeding"}
    bad = {**good, "switches": {"self_check": "sometimes"}}
    unknown = {**good, "component": "nonsense"}
    lm = DummyLM([{"reasoning": "r", "edit": json.dumps(e)} for e in (good, bad, unknown)])
    proposer = LLMProposer(lm)
    seen = []
    original = proposer.module.__call__

    def spy(**kwargs):
        seen.append(kwargs["config"]["rollout_id"])
        return original(**kwargs)

    proposer.module = spy
    proposals = proposer.propose(context({"proceeded": 4}), 3)
    assert len(proposals) == 1 and proposals[0].harness.switches.self_check == "end"
    assert "prerequisite checks" in proposals[0].rationale and len(set(seen)) == 3
    assert isinstance(lm, dspy.BaseLM)


@pytest.mark.parametrize("args, message", [
    (["--objective", "speed"], "unknown objective 'speed'"),
    (["--proposer", "oracle"], "unknown proposer 'oracle'"),
    (["--env", "moon"], "unknown environment 'moon'"),
    (["--accept", "best"], "unknown acceptance rule 'best'"),
    (["--space", "nope"], "no search space 'nope'"),
])
def test_cli_bad_input_is_one_clear_line_and_writes_nothing(tmp_path, args, message):
    result = CliRunner().invoke(app, ["search", "--env", "toy", "--runs-dir", str(tmp_path / "runs"),
                                      "--no-mlflow", *args])
    assert result.exit_code == 2 and message in result.output.replace("\n", " ")
    assert not (tmp_path / "runs").exists()


def test_cli_invalid_space_file(tmp_path):
    path = write_space(tmp_path, **{"libraries.few_shot.component": "sys_prompt"})
    result = CliRunner().invoke(app, ["search", "--env", "toy", "--space", path, "--no-mlflow",
                                      "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2 and "component" in result.output and not (tmp_path / "runs").exists()
