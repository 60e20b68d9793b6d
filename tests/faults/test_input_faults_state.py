"""Inputs that cannot be scored fairly, state that must not be believed, and models that cannot
answer: a dead task model, judge or meta-model is a pre-flight error (exit 2, one line, nothing
written); a command whose every rollout is excluded stops with the reasons (exit 3), never a report
of nothing; harness and task files that cannot be scored fairly are refused at load (harness: one
line naming file, field and expectation, exit 2; task: listed as invalid with its reason); stored
files edited after they were written are refused with the file named and how to recover."""

from __future__ import annotations

import asyncio

import litellm
import pytest
from fault_server import OK, UNAUTHORIZED, FaultServer, closed_port
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.toy import ToySuite
from harnessx.errors import ModelCallError
from harnessx.models.providers import register_script
from harnessx.search import Search, SearchConfig


def revoked(messages, tools, metadata):
    """A provider that refuses every call with a non-transient error (a revoked key)."""
    raise litellm.AuthenticationError("key revoked", llm_provider="scripted", model="revoked")


REVOKED = register_script("revoked", revoked)


def dead() -> str:
    return f"http://127.0.0.1:{closed_port()}/v1"


def invoke(args: list[str]):
    return CliRunner().invoke(app, args)


# --- a dead model: pre-flight, before anything is written ---------------------------------------------
@pytest.mark.parametrize("command", [
    ["kapro", "eval", "--model", "openai/x"],
    ["cf", "eval", "--model", "openai/x"],
    ["feasigen", "build", "--env", "retail", "--limit", "2", "--system", "openai/x"],
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
    model = ["--system", REVOKED] if command[0] == "feasigen" else ["--model", REVOKED]
    out = ["--out", str(tmp_path / "out")]
    result = invoke([*command, *model, *out])
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert f"{name}: every one of the" in text and "excluded (model_failure" in text, text
    assert "key revoked" in text  # the first failure's own reason
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
    return SearchConfig(env="toy", model="sim/baseline", proposer="gepa", meta_model="openai/meta",
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
