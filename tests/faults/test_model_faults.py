"""Model faults: a provider that cannot answer is a pre-flight error (exit 2, one line) or, during a
run, an excluded and named `model_failure` — never an agent's failure — and a search stops cleanly on
a persistent outage. Faults come from a loopback endpoint (429 + Retry-After, 500, truncated and
malformed bodies, timeouts, 401) and from scripted providers."""

from __future__ import annotations

import asyncio
import json

import litellm
import pytest
from typer.testing import CliRunner

from waits import recorded_sleeps
from fault_server import (HANG, MALFORMED, NOT_JSON, OK, RATE_LIMITED, SERVER_ERROR, UNAUTHORIZED, FaultServer,
                          closed_port)
from harnessx.agent.runner import RolloutCache, Runner
from harnessx.cli.main import app
from harnessx.envs.toy import ToySuite
from harnessx.errors import InputError, ModelCallError
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.models.preflight import PREFLIGHT_TIMEOUT_S, preflight
from harnessx.models.providers import register_script
from harnessx.search import Search, SearchConfig
from harnessx.sim import respond

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def waits(monkeypatch) -> list[float]:
    return recorded_sleeps(monkeypatch)


def client(url: str, **kw) -> ModelClient:
    return ModelClient("openai/fault", api_base=url, api_key="test-key", backoff_s=0.01, timeout_s=1, **kw)


# --- the provider layer: classification and retries -------------------------------------------------
def test_retry_after_is_honoured_and_a_429_then_ok_answers(waits):
    with FaultServer([RATE_LIMITED, OK]) as srv:
        reply = asyncio.run(client(srv.url, max_retries=2).complete(MESSAGES))
        assert reply.text == "OK" and reply.retries == 1 and srv.requests == 2
        assert srv.times[1] - srv.times[0] >= 0.95  # Retry-After: 1 (the backoff alone is 0.01 s)
    assert waits == [1.0]  # one wait, exactly what Retry-After asked (not a longer backoff)


@pytest.mark.parametrize("plan, kind, requests", [
    ([SERVER_ERROR], "server", 3), ([MALFORMED], "server", 3), ([NOT_JSON], "server", 3),
    ([UNAUTHORIZED], "auth", 1), ([HANG], "timeout", 3),
])
def test_persistent_provider_faults_are_model_call_errors_with_their_kind(plan, kind, requests):
    with FaultServer(plan) as srv:
        with pytest.raises(ModelCallError) as info:
            asyncio.run(client(srv.url, max_retries=2).complete(MESSAGES))
        assert info.value.kind == kind and srv.requests == requests  # auth is not retried; the rest 1 + 2
        assert srv.url in str(info.value)


def test_a_dead_endpoint_is_a_connection_failure():
    with pytest.raises(ModelCallError) as info:
        asyncio.run(client(f"http://127.0.0.1:{closed_port()}/v1", max_retries=1).complete(MESSAGES))
    assert info.value.kind == "connection"


# --- pre-flight -------------------------------------------------------------------------------------
@pytest.mark.parametrize("model, api_base, error, words", [
    ("sim/nosuch", None, InputError, ["nosuch", "baseline"]),
    ("nosuchprovider/foo", None, ModelCallError, ["nosuchprovider/foo", "bad_request"]),
    ("openai/x", "not-a-url", InputError, ["--api-base", "not-a-url"]),
    ("openai/x", "CLOSED", ModelCallError, ["openai/x", "127.0.0.1", "connection"]),
    ("openai/gpt-4.1-mini", None, ModelCallError, ["gpt-4.1-mini", "OPENAI_API_KEY", "not set"]),  # no call made
])
def test_preflight_fails_fast_naming_model_base_url_and_the_providers_error(model, api_base, error, words,
                                                                              monkeypatch, waits):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    if api_base == "CLOSED":
        api_base = f"http://127.0.0.1:{closed_port()}/v1"
    calls: list[dict] = []
    acompletion = litellm.acompletion

    async def counted(**kwargs):
        calls.append(kwargs)
        return await acompletion(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", counted)
    with pytest.raises(error) as info:
        key = "test-key" if api_base and api_base.startswith("http") else None
        asyncio.run(preflight(ModelClient(model, api_base=api_base, api_key=key, backoff_s=0.01)))
    # fast, whatever the machine's load: at most two tries, each under the pre-flight's short timeout
    # (not the run's), and at most one short wait between them
    assert len(calls) <= 2 and all(c["timeout"] <= PREFLIGHT_TIMEOUT_S for c in calls), calls
    assert len(waits) <= 1 and sum(waits) <= 0.5, waits
    text = str(info.value)
    assert "\n" not in text.strip() and all(w in text for w in words), text


def test_preflight_passes_a_working_endpoint_with_one_call():
    with FaultServer([OK]) as srv:
        asyncio.run(preflight(client(srv.url)))
        assert srv.requests == 1


@pytest.mark.parametrize("args", [["--model", "sim/nosuch"], ["--model", "nosuchprovider/foo"],
                                  ["--model", "openai/x", "--api-base", "not-a-url"]])
def test_eval_with_a_model_that_cannot_answer_exits_2_with_one_line(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["eval", "--harness", "A1", "--env", "toy", "--split", "search", *args])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error:") and "split (" not in result.output  # no table of zeros
    assert not (tmp_path / "runs").exists()  # nothing written


def test_search_with_a_model_that_cannot_answer_creates_no_run_dir(tmp_path):
    cfg = SearchConfig.of(env="toy", model="sim/nosuch", rounds=1, runs_dir=str(tmp_path / "runs"), tracking_uri=None)
    with pytest.raises(InputError, match="nosuch"):
        asyncio.run(Search(cfg, suite=ToySuite(2)).run())
    assert not (tmp_path / "runs").exists()


# --- during a run: excluded, counted and named, never the agent's failure --------------------------
STATE = {"calls": 0, "fail_after": None, "fail_tasks": ()}


def flaky(messages, tools, metadata):
    """sim/baseline, except that it raises a provider 500 on chosen tasks or after N calls."""
    STATE["calls"] += 1
    hx = metadata["harnessx"]
    if hx["sim"]["task_id"] in STATE["fail_tasks"] or (
            STATE["fail_after"] is not None and STATE["calls"] > STATE["fail_after"]):
        raise litellm.InternalServerError("upstream 500", llm_provider="scripted", model="flaky")
    return respond("baseline", messages, tools, metadata)


FLAKY = register_script("flaky", flaky)


def test_a_model_failure_is_excluded_and_named_not_scored_as_an_agent_failure(tmp_path):
    suite = ToySuite(n_sources=2)
    tasks = suite.tasks()
    STATE.update(calls=0, fail_after=None, fail_tasks=(tasks[0].id,))
    cache = RolloutCache(tmp_path / "rollouts")
    runner = Runner(suite, ModelClient(FLAKY, max_retries=1, backoff_s=0.0), cache)
    ev = asyncio.run(evaluate(runner, load_preset("A1"), tasks, [0]))
    card = ev.scorecard
    assert card.excluded == {"model_failure": 1}
    assert card.joint.n == len(tasks) - 1 and card.joint.excluded == 1
    [named] = ev.exclusions
    assert named["task_id"] == tasks[0].id and named["exclusion"] == "model_failure" and "upstream 500" in named["detail"]
    cached = [json.loads(p.read_text())["task_id"] for p in (tmp_path / "rollouts").rglob("*.json")]
    assert tasks[0].id not in cached and len(cached) == len(tasks) - 1  # the failure is not cached
    STATE.update(fail_tasks=())
    again = asyncio.run(evaluate(runner, load_preset("A1"), tasks, [0]))
    assert again.scorecard.excluded == {} and again.scorecard.joint.n == len(tasks)  # re-run, now valid


def test_circuit_breaker_stops_the_search_cleanly_and_resume_finishes_it(tmp_path):
    cfg = SearchConfig.of(objective="joint", env="toy", model=FLAKY, rounds=2, proposals=2,
                       runs_dir=str(tmp_path / "runs"), tracking_uri=None, concurrency=2)
    STATE.update(calls=0, fail_tasks=(), fail_after=40)  # R0 (8 tasks, a few calls each) passes; then it dies
    search = Search(cfg, suite=ToySuite(4))
    search.model.backoff_s = 0.0  # retries still happen (3 per call), without the wall-clock wait
    result = asyncio.run(search.run())
    assert result.summary["stop_reason"].startswith("model: the model failed on 5 rollouts in a row")
    calls_at_stop = STATE["calls"]
    assert calls_at_stop < 40 + 4 * 8 * 4  # stopped early instead of burning every rollout of the rounds
    STATE.update(fail_after=None)
    resumed = asyncio.run(Search(cfg, suite=ToySuite(4)).run(resume=True))
    assert resumed.summary["rounds_done"] == 2 and resumed.summary["stop_reason"] is None
