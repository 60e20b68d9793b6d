"""An offline model call cancelled before it began (Ctrl-C between LiteLLM's executor step and its
await) is closed at exit, not reported by Python as a coroutine that was never awaited."""

from __future__ import annotations

import asyncio
import gc
import warnings

import litellm

from harnessx.models.providers import close_unstarted, held_until_started
from tests.scripted_models import register_script


async def _answer() -> str:
    return "ok"


def test_an_unstarted_call_is_held_and_closed_without_a_warning():
    close_unstarted()
    dropped = held_until_started(_answer)
    del dropped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a "never awaited" RuntimeWarning would raise here
        gc.collect()
        assert close_unstarted() == 1
        gc.collect()
    assert close_unstarted() == 0


def test_a_started_call_is_released_and_returns_its_result():
    close_unstarted()
    assert asyncio.run(held_until_started(_answer)) == "ok"
    assert close_unstarted() == 0


def test_a_litellm_call_through_the_offline_provider_still_answers():
    model = register_script("unstarted-ok", lambda messages, tools, metadata: {"content": "hi"})
    reply = asyncio.run(litellm.acompletion(model=model, messages=[{"role": "user", "content": "x"}]))
    assert reply.choices[0].message.content == "hi"
    assert close_unstarted() == 0
