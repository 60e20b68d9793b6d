"""`--temperature`, `--top-p` and `--seed` on eval and compare reach every LiteLLM call, seed the
epochs seed*1000+e, and are part of the evaluation key; unset, they fall back to what a run recorded."""

from __future__ import annotations

import json

import pytest
from litellm import CustomLLM
from typer.testing import CliRunner

from harnessx.agent.sampling import COPIES_WARNING, SamplingDefaults, copies_warning, epoch_seeds
from harnessx.cli.main import app
from harnessx.comparison import setup
from harnessx.harness import load_preset
from harnessx.models.providers import _to_model_response, register_handler

SEEN: list[dict] = []


class Capture(CustomLLM):
    """Answers every call with a final message and records the sampling parameters LiteLLM passed."""

    async def acompletion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose,
                          encoding, api_key, logging_obj, optional_params, acompletion=None, litellm_params=None,
                          logger_fn=None, headers={}, timeout=None, client=None):
        SEEN.append({k: optional_params.get(k) for k in ("temperature", "top_p", "seed")})
        return _to_model_response(model, {"content": "done", "usage": {"prompt_tokens": 3, "completion_tokens": 1}})


@pytest.fixture(autouse=True)
def capture_model():
    register_handler("capture", Capture())
    SEEN.clear()


def test_epoch_seeds_are_deterministic_distinct_and_unchanged_at_seed_zero():
    assert epoch_seeds(0, 3) == [0, 1, 2]  # what eval/compare used before --seed existed
    assert epoch_seeds(3, 2) == [3000, 3001] == SamplingDefaults(seed=3).epoch_seeds(2)
    assert len(set(epoch_seeds(1, 5)) | set(epoch_seeds(2, 5))) == 10


def test_the_evaluation_key_holds_only_settings_off_the_defaults():
    assert SamplingDefaults().key() == {}
    assert SamplingDefaults(temperature=0.7, top_p=0.9, seed=2).key() == {"temperature": 0.7, "top_p": 0.9, "seed": 2}
    assert SamplingDefaults(top_p=0.0).key() == {"top_p": 0.0}


class _Run:
    def __init__(self, config: dict):
        self.config, self.path = config, None


class _Contender:
    def __init__(self, config: dict | None):
        self.run = _Run(config) if config is not None else None


def test_explicit_options_win_over_the_runs_recorded_sampling_which_wins_over_defaults():
    searched = [_Contender({"temperature": 0.7, "top_p": 0.8})]
    assert setup.sampling(searched) == SamplingDefaults(temperature=0.7, top_p=0.8, seed=0)
    assert setup.sampling(searched, temperature=0.0, top_p=0.5, seed=4) == SamplingDefaults(0.0, 0.5, 4)
    assert setup.sampling([_Contender(None)]) == SamplingDefaults()


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_cli_sampling_reaches_every_call_and_seeds_each_epoch(tmp_path, command):
    out = tmp_path / command
    target = ["--harness", "A1"] if command == "eval" else ["A1"]
    result = CliRunner().invoke(app, [command, *target, "--env", "toy", "--model", "capture/m", "--epochs", "2",
                                      "--temperature", "0.7", "--top-p", "0.9", "--seed", "3", "--resamples", "100",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(next(out.glob(f"{command}-*.json")).read_text())
    assert data["seeds"] == [3000, 3001]
    key = data["evaluation_key"]
    assert (key["temperature"], key["top_p"], key["seed"]) == (0.7, 0.9, 3)
    rollout_calls = [c for c in SEEN if c["seed"] is not None]  # the pre-flight probe carries no seed
    assert rollout_calls and all(c["temperature"] == 0.7 and c["top_p"] == 0.9 for c in rollout_calls)
    assert {c["seed"] for c in rollout_calls} == {3000, 3001}


def test_a_harness_switch_still_wins_over_the_cli_default(tmp_path):
    harness = tmp_path / "hot.yaml"
    harness.write_text(load_preset("A1").with_switches(temperature=1.1).model_dump_json(), encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "--harness", str(harness), "--env", "toy", "--model", "capture/m",
                                      "--temperature", "0.3", "--resamples", "100", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert {c["temperature"] for c in SEEN if c["seed"] is not None} == {1.1}


def test_temperature_out_of_range_is_a_clear_usage_error(tmp_path):
    result = CliRunner().invoke(app, ["eval", "--harness", "A1", "--env", "toy", "--temperature", "3",
                                      "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "--temperature" in result.output


def test_the_copies_warning_is_given_only_when_every_call_of_a_real_model_is_at_temperature_zero():
    assert copies_warning(2, 0.0, [None, None], simulated=False) == COPIES_WARNING
    assert copies_warning(1, 0.0, [None], simulated=False) is None  # one epoch: nothing is copied
    assert copies_warning(2, 0.0, [None], simulated=True) is None  # the simulator draws per seed
    assert copies_warning(2, 0.7, [None], simulated=False) is None
    assert copies_warning(2, 0.0, [None, 0.5], simulated=False) is None  # one harness samples
    assert copies_warning(2, 0.7, [0.0], simulated=False) == COPIES_WARNING  # its switch wins: 0


def test_eval_with_a_real_model_at_temperature_zero_warns_that_epochs_are_copies(tmp_path):
    args = ["eval", "--harness", "A1", "--env", "toy", "--model", "capture/m", "--epochs", "2", "--resamples", "100"]
    cold = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "cold")])
    hot = CliRunner().invoke(app, [*args, "--temperature", "0.5", "--out", str(tmp_path / "hot")])
    assert cold.exit_code == 0 and hot.exit_code == 0, cold.output + hot.output
    assert "epochs are" in cold.output and "copies" in cold.output
    assert "copies" not in hot.output


@pytest.mark.parametrize("probe", ["belief", "challenge"])
def test_probe_sampling_reaches_every_call_seeds_each_epoch_and_names_the_file(tmp_path, probe):
    out = tmp_path / probe
    count = ["--epochs", "2"] if probe == "belief" else ["--replicates", "2"]
    result = CliRunner().invoke(app, ["probe", probe, "A1", "--env", "toy", "--model", "capture/m", *count,
                                      "--sources", "2", "--temperature", "0.7", "--top-p", "0.9", "--seed", "3",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    [written] = list(out.glob(f"{probe}-*.json"))
    assert written.name == f"{probe}-search-temperature0.7-top_p0.9-seed3.json"  # never overwrites a default run
    data = json.loads(written.read_text())
    seeds = data["seeds"] if probe == "belief" else data["harnesses"]["A1"]["seeds"]
    assert seeds == [3000, 3001]
    calls = [c for c in SEEN if c["seed"] is not None]
    assert calls and all(c["temperature"] == 0.7 and c["top_p"] == 0.9 for c in calls)
    assert {c["seed"] for c in calls} <= {3000, 3001}
