"""A rule's settings are the user's to set and the run's to keep: `--accept-option name=value` sets any
of the --accept rule's `options()` (search and plan), config.json records every one, and a resume
given different ones is refused with the entries that differ, so a run started with, say,
confirm=unseen is never continued under confirm=all without a word. Class: every option of every
registered rule (the seam test rebuilds each rule from what it records); here the CLI round trip,
the parser over generated values, and the bad input a user types."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.errors import InputError
from harnessx.search import Search, SearchConfig
from harnessx.search.rules import make_acceptance, parse_options

NAMES = st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True)
WORDS = NAMES.filter(lambda w: w not in ("true", "false", "none", "inf", "infinity", "nan"))
VALUES = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False), WORDS, st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(NAMES, VALUES, max_size=5))
def test_parse_options_gives_back_each_value_of_its_kind(values):
    items = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in values.items()]
    parsed = parse_options(items)
    assert parsed == values
    assert all(type(parsed[k]) is type(v) for k, v in values.items())  # 1 stays an int, 1.0 a float


@pytest.mark.parametrize("item", ["move_p", "=0.3", "move_p=", " = ", "move_p=nan", "move_p=inf"])
def test_a_malformed_option_is_one_line_naming_the_flag(item):
    with pytest.raises(InputError) as err:
        parse_options([item])
    assert str(err.value).startswith("--accept-option") and "\n" not in str(err.value)


@pytest.mark.parametrize("settings_, says", [({"gat": 0}, "default has no option gat (expected one of confirm,"),
                                             ({"screen": "abc"}, "screen='abc' (expected a number (the default is 16))"),
                                             ({"confirm": "sometimes"}, "confirm = 'sometimes'")])
def test_a_setting_the_rule_does_not_take_is_refused(settings_, says):
    with pytest.raises(InputError) as err:
        make_acceptance("default", settings_)
    assert says in str(err.value)


def test_a_rule_without_settings_says_it_takes_none():
    with pytest.raises(InputError, match=r"greedy has no option move_p \(expected none"):
        make_acceptance("greedy", {"move_p": 0.3})


def test_the_settings_reach_the_rule_and_the_plan(tmp_path, monkeypatch):
    config = SearchConfig.of(env="toy", runs_dir=str(tmp_path), tracking_uri=None,
                             accept_options={"gate": 0, "confirm": "unseen", "move_p": 0.4})
    rule = Search(config).acceptance
    assert (rule.settings.gate, rule.settings.confirm, rule.settings.move_p) == (0, "unseen", 0.4)
    monkeypatch.chdir(tmp_path)
    for option, says in (("gate=0", "screens each proposal on 16 tasks"), ("gate=2", "gates 24 looks a round on 2 tasks")):
        out = CliRunner().invoke(app, ["plan", "--env", "toy", "--tasks", "64", "--discordance", "0.4",
                                       "--accept-option", option])
        assert out.exit_code == 0, out.output
        assert says in " ".join(out.output.split()), option


def _search(*extra: str):
    return CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "1", "--proposals", "2", "--no-mlflow",
                                    "--name", "s", "--certify-split", "none", *extra])


def test_a_search_records_its_settings_and_a_resume_must_repeat_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    given_ = ["--accept-option", "confirm=unseen", "--accept-option", "move_p=0.4"]
    out = _search(*given_)
    assert out.exit_code == 0, out.output
    assert "confirm=unseen move_p=0.4" in out.output  # the first line says what runs
    config_file = tmp_path / "runs" / "s" / "config.json"
    recorded = json.loads(config_file.read_text())["accept_options"]
    assert recorded["confirm"] == "unseen" and recorded["move_p"] == 0.4 and recorded["design"] == "halving"
    before = config_file.read_text()
    out = _search("--resume")  # the settings left out: the run's own defaults would silently change
    assert out.exit_code == 2
    flat = " ".join(out.output.split())
    assert "accept_options: run has confirm='unseen', move_p=0.4; now confirm='all', move_p=0.5" in flat
    assert config_file.read_text() == before  # nothing rewritten
    out = _search("--resume", *given_)
    assert out.exit_code == 0, out.output
    assert json.loads(config_file.read_text())["accept_options"] == recorded


def _legacy_run(tmp_path, monkeypatch):
    """A run whose config.json predates `accept_options` (made, then the field removed)."""
    monkeypatch.chdir(tmp_path)
    assert _search().exit_code == 0
    config_file = tmp_path / "runs" / "s" / "config.json"
    old = json.loads(config_file.read_text())
    del old["accept_options"]
    config_file.write_text(json.dumps(old))
    return config_file


def test_a_run_made_before_settings_were_recorded_still_resumes(tmp_path, monkeypatch):
    _legacy_run(tmp_path, monkeypatch)
    out = _search("--resume")
    assert out.exit_code == 0, out.output


def test_a_bad_setting_stops_the_search_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = _search("--accept-option", "gat=0")
    assert out.exit_code == 2
    assert "--accept-option: default has no option gat" in " ".join(out.output.split())
    assert not (tmp_path / "runs" / "s").exists()


@pytest.mark.parametrize("settings_, says", [
    ({"alpha": 0.3}, "paired has no option alpha (--alpha sets it)"),  # one alpha, the one --alpha gives
    ({"method": "bogus"}, "method = 'bogus' (expected sign_flip or wilcoxon)"),
    ({"smoke": 0}, "smoke = 0"), ({"drop_p": -3}, "drop_p = -3")])
def test_paireds_settings_are_checked_and_alpha_is_alphas(settings_, says):
    with pytest.raises(InputError) as err:
        make_acceptance("paired", settings_, alpha=0.05)
    assert says in str(err.value)


@pytest.mark.parametrize("settings_", [{"screen": 5}, {"screen": 16.5}, {"gate": 4.7}, {"tie_tasks": 2.9}])
def test_an_odd_screen_or_a_fraction_of_a_task_is_refused_not_rounded(settings_):
    """A screen is whole blocked-feasible pairs (an odd one screened one task more than the budget
    counted), and 2.9 tasks is not silently 2."""
    with pytest.raises(InputError):
        make_acceptance("default", settings_)


def test_a_setting_given_twice_is_refused():
    with pytest.raises(InputError, match="move_p given twice"):
        parse_options(["move_p=0.3", "move_p=0.4"])


def test_a_legacy_runs_first_resume_records_its_settings_and_the_next_is_checked(tmp_path, monkeypatch):
    config_file = _legacy_run(tmp_path, monkeypatch)
    assert _search("--resume", "--accept-option", "move_p=0.4").exit_code == 0  # unknowable: taken and recorded
    assert json.loads(config_file.read_text())["accept_options"]["move_p"] == 0.4
    out = _search("--resume", "--accept-option", "move_p=0.9")
    assert out.exit_code == 2 and "move_p=0.4; now move_p=0.9" in " ".join(out.output.split())


def test_a_rule_object_and_the_configs_settings_must_agree(tmp_path):
    from harnessx.search.explore import Explore, ExploreSettings

    config = SearchConfig.of(env="toy", runs_dir=str(tmp_path), tracking_uri=None, accept_options={"gate": 0})
    with pytest.raises(InputError, match="gate=0 but the rule given has gate=4"):
        Search(config, acceptance=Explore(ExploreSettings()))
    agreeing = Search(config, acceptance=Explore(ExploreSettings(gate=0)))
    from harnessx.search.budget import search_plan

    plan = search_plan(agreeing)  # the plan is the rule's that runs
    assert plan.rollouts_per_round == agreeing.acceptance.round_rollouts(plan.config.tasks, 3)


def test_a_plug_in_rules_settings_are_recorded_as_json_and_resume(tmp_path):
    """A dataclass rule with a tuple and a path: config.json holds a list and a string, and a resume
    of the same rule compares equal instead of being refused or crashing."""
    import asyncio
    from dataclasses import dataclass, field
    from pathlib import Path

    from harnessx.search.greedy import Greedy

    @dataclass
    class Shaped(Greedy):
        strata: tuple = ("a", "b")
        notes: Path = field(default_factory=lambda: Path("notes.txt"))
        name: str = "shaped"

    config = SearchConfig.of(env="toy", rounds=0, runs_dir=str(tmp_path), tracking_uri=None, name="p")
    asyncio.run(Search(config, acceptance=Shaped()).run())
    recorded = json.loads((tmp_path / "p" / "config.json").read_text())["accept_options"]
    assert recorded == {"strata": ["a", "b"], "notes": "notes.txt"}
    asyncio.run(Search(config, acceptance=Shaped()).run(resume=True))
