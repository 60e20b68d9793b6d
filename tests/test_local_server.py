"""llama.cpp's OpenAI-compatible server on loopback, used through ModelClient with api_base."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request

import pytest

from harnessx.models.client import ModelClient

pytestmark = [pytest.mark.realmodel,
              pytest.mark.requires("local-server")]


async def test_server_answers_a_chat_call_through_model_client_and_stops():
    from harnessx.local.server import serve

    with serve("smollm2") as server:
        assert server.url.startswith("http://127.0.0.1:")
        client = ModelClient("openai/smollm2", api_base=server.url, api_key="local", max_retries=0)
        reply = await client.complete([{"role": "user", "content": "Say hello."}], max_tokens=16, seed=3)
        assert reply.text
        assert reply.usage.prompt_tokens > 0 and 0 < reply.usage.completion_tokens <= 16
    assert server.process.returncode is not None
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        urllib.request.urlopen(f"{server.url}/models", timeout=2)


def test_a_busy_port_is_refused_before_starting():
    from harnessx.local.server import ServerError, claim_port

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(ServerError, match="in use"):
            claim_port(busy.getsockname()[1])
