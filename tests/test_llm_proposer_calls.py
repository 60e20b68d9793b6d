"""The `llm` proposer's meta-model calls, against a loopback OpenAI-compatible endpoint: they go through
LiteLLM (DSPy 3.4 and later would otherwise use their own client), a typed reply becomes a proposal,
and a failed call drops that slot with its reason instead of stopping the search."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import litellm
import pytest

sys.path.insert(0, str(Path(__file__).parent / "faults"))
from fault_server import SERVER_ERROR, UNAUTHORIZED, FaultServer, closed_port, completion  # noqa: E402
from test_search_space import context  # noqa: E402

from harnessx.errors import ModelCallError  # noqa: E402
from harnessx.search.proposers.llm import LLMProposer  # noqa: E402

EDIT = {"component": "abandon_protocol", "new_text": "If the request cannot be done, say why and stop.",
        "hypothesis": "the agent proceeds on blocked tasks"}
REPLY = (200, {}, completion(f"[[ ## reasoning ## ]]\nit proceeds\n\n[[ ## edit ## ]]\n{json.dumps(EDIT)}\n\n"
                             "[[ ## completed ## ]]"))


def proposer(url: str) -> LLMProposer:
    p = LLMProposer("openai/loopback", api_base=url, temperature=0.5)
    p.lm.cache = False       # every call reaches the endpoint (no reply from DSPy's disk cache)
    p.lm.num_retries = 0     # a failed call fails at once
    return p


@pytest.fixture
def litellm_calls(monkeypatch):
    calls = []
    real = litellm.completion

    def spy(*args, **kwargs):
        calls.append(kwargs.get("model"))
        return real(*args, **kwargs)

    monkeypatch.setattr(litellm, "completion", spy)
    return calls


def test_a_typed_reply_from_the_endpoint_is_a_proposal_made_through_litellm(litellm_calls):
    with FaultServer([REPLY]) as server:
        p = proposer(server.url)
        proposals = p.propose(context({"proceeded": 4}), 1)
    assert server.requests == 1 and len(litellm_calls) == 1
    assert p.dropped == [] and len(proposals) == 1
    assert proposals[0].harness.components["abandon_protocol"] == EDIT["new_text"]


@pytest.mark.parametrize("plan", [[SERVER_ERROR], "closed"])
def test_a_failed_meta_model_call_drops_the_slot_and_names_why(plan, litellm_calls):
    if plan == "closed":
        p = proposer(f"http://127.0.0.1:{closed_port()}/v1")
        proposals = p.propose(context({"proceeded": 4}), 2)
    else:
        with FaultServer(plan) as server:
            p = proposer(server.url)
            proposals = p.propose(context({"proceeded": 4}), 2)
        assert server.requests >= 2
    assert proposals == [] and len(litellm_calls) >= 2
    assert [d.split(" (")[0] for d in p.dropped] == ["slot 0: the meta-model call failed",
                                                     "slot 1: the meta-model call failed"], p.dropped


def test_a_bad_key_stops_with_one_error_naming_the_meta_model(litellm_calls):
    with FaultServer([UNAUTHORIZED]) as server:
        p = proposer(server.url)
        with pytest.raises(ModelCallError, match=r"^meta-model openai/loopback: .*invalid api key") as caught:
            p.propose(context({"proceeded": 4}), 2)
    assert caught.value.kind == "auth" and server.requests == 1  # the first slot's call; no second
