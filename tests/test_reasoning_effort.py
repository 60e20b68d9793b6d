"""Reasoning effort (LiteLLM's `reasoning_effort`, or a thinking budget in tokens): set from the CLI
(`--reasoning-effort` on eval, compare and search) or a harness file's switch, it reaches every task
agent call and is part of the rollout key and the evaluation key; unset, no option is sent and keys,
harness hashes and saved harness files are what they were before the setting existed."""

from __future__ import annotations

import json

import pytest
from litellm import CustomLLM
from typer.testing import CliRunner

from harnessx.agent.keys import rollout_key
from harnessx.cli.main import app
from harnessx.envs.registry import get_suite
from harnessx.harness import Harness, load_preset
from harnessx.models.client import ModelClient
from harnessx.models.providers import _to_model_response, register_handler

SEEN: list[dict] = []
PARAMS = ("reasoning_effort", "thinking", "seed")


class Capture(CustomLLM):
    """Answers every call with a final message and records the reasoning options LiteLLM passed."""

    async def acompletion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose,
                          encoding, api_key, logging_obj, optional_params, acompletion=None, litellm_params=None,
                          logger_fn=None, headers={}, timeout=None, client=None):
        SEEN.append({k: optional_params.get(k) for k in PARAMS})
        return _to_model_response(model, {"content": "done", "usage": {"prompt_tokens": 3, "completion_tokens": 1}})


@pytest.fixture(autouse=True)
def capture_model():
    register_handler("capture", Capture())
    SEEN.clear()


def rollout_calls() -> list[dict]:
    return [c for c in SEEN if c["seed"] is not None]  # the pre-flight probe carries no seed


def test_unset_the_rollout_key_and_the_harness_hash_are_unchanged():
    task = get_suite("toy").tasks()[0]
    # the key of this rollout as computed before the setting existed
    assert rollout_key(load_preset("A1"), task, 0, ModelClient("sim/baseline", temperature=0.7).identity) \
        == "051fe1578e8a17d1cb97855a"
    assert load_preset("A1").hash == "053452481fbe0b22"
    assert "reasoning_effort" not in load_preset("A1").to_yaml()


def test_set_it_changes_the_rollout_key_and_the_harness_hash():
    task, harness = get_suite("toy").tasks()[0], load_preset("A1")
    keys = {effort: rollout_key(harness, task, 0, ModelClient("sim/baseline", reasoning_effort=effort).identity)
            for effort in (None, "low", "high", "2048")}
    assert len(set(keys.values())) == 4
    switched = harness.with_switches(reasoning_effort="HIGH")
    assert switched.switches.reasoning_effort == "high" and switched.hash != harness.hash
    assert Harness.model_validate_json(switched.model_dump_json()).hash == switched.hash


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_the_cli_setting_reaches_every_call_and_the_evaluation_key(tmp_path, command):
    out = tmp_path / command
    target = ["--harness", "A1"] if command == "eval" else ["A1"]
    result = CliRunner().invoke(app, [command, *target, "--env", "toy", "--model", "capture/m",
                                      "--reasoning-effort", "high", "--resamples", "100", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(next(out.glob(f"{command}-*.json")).read_text())
    assert data["evaluation_key"]["reasoning_effort"] == "high"
    assert rollout_calls() and all(c["reasoning_effort"] == "high" for c in rollout_calls())
    assert SEEN[0]["reasoning_effort"] == "high"  # the pre-flight asks with it too


def test_unset_no_reasoning_option_is_sent_and_the_evaluation_key_has_none(tmp_path):
    result = CliRunner().invoke(app, ["eval", "--harness", "A1", "--env", "toy", "--model", "capture/m",
                                      "--resamples", "100", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    data = json.loads(next((tmp_path / "o").glob("eval-*.json")).read_text())
    assert "reasoning_effort" not in data["evaluation_key"]
    assert rollout_calls() and all(c["reasoning_effort"] is None and c["thinking"] is None for c in SEEN)


def test_a_harness_file_sets_a_thinking_budget_that_wins_over_the_cli(tmp_path):
    harness = tmp_path / "thinks.yaml"
    harness.write_text(load_preset("A1").with_switches(reasoning_effort=2048).to_yaml(), encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "--harness", str(harness), "--env", "toy", "--model", "capture/m",
                                      "--reasoning-effort", "low", "--resamples", "100", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert rollout_calls() and all(c["thinking"] == {"type": "enabled", "budget_tokens": 2048}
                                   and c["reasoning_effort"] is None for c in rollout_calls())


def test_search_passes_it_to_every_call_and_records_it(tmp_path):
    result = CliRunner().invoke(app, ["search", "--env", "toy", "--model", "capture/m", "--reasoning-effort", "medium",
                                      "--rounds", "0", "--no-mlflow", "--certify-split", "none",
                                      "--runs-dir", str(tmp_path), "--name", "r"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "r" / "config.json").read_text())["reasoning_effort"] == "medium"
    assert rollout_calls() and all(c["reasoning_effort"] == "medium" for c in rollout_calls())


@pytest.mark.parametrize("value", ["extreme", "12", "-5"])
def test_a_bad_value_is_one_usage_error_naming_the_option(tmp_path, value):
    result = CliRunner().invoke(app, ["eval", "--harness", "A1", "--env", "toy", "--reasoning-effort", value,
                                      "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "--reasoning-effort" in result.output and "low" in result.output
    assert not (tmp_path / "o").exists()


def test_a_bad_value_in_a_harness_file_names_the_field(tmp_path):
    harness = tmp_path / "bad.yaml"
    harness.write_text(load_preset("A1").to_yaml().replace("  max_steps:", "  reasoning_effort: extreme\n  max_steps:"),
                       encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "--harness", str(harness), "--env", "toy", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "reasoning_effort" in result.output, result.output


@pytest.mark.parametrize("probe", ["belief", "challenge"])
def test_probes_pass_it_to_every_call_and_name_their_file_by_it(tmp_path, probe):
    out = tmp_path / probe
    result = CliRunner().invoke(app, ["probe", probe, "A1", "--env", "toy", "--model", "capture/m", "--sources", "1",
                                      *(["--replicates", "1"] if probe == "challenge" else []),
                                      "--reasoning-effort", "4096", "--out", str(out)])
    assert result.exit_code == 0, result.output
    [written] = list(out.glob(f"{probe}-*.json"))
    assert written.name == f"{probe}-search-reasoning_effort4096.json"
    assert rollout_calls() and all(c["thinking"] == {"type": "enabled", "budget_tokens": 4096} for c in rollout_calls())
