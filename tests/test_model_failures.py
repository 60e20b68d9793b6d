"""`classify` reads a provider failure the way a run must treat it: LiteLLM's own errors, DSPy's
wrappers of them (DSPy 3.4 and later raise their `LMError` classes *from* LiteLLM's), and DSPy's own
errors when its client made the call. Anything else, even raised while a provider failure was being
handled, is a bug and classifies as None."""

from __future__ import annotations

import litellm
import pytest
from dspy.utils import exceptions as dspy_exceptions

from harnessx.models.failures import classify


def raised_from(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise outer from exc
    except BaseException as caught:
        return caught


def auth() -> Exception:
    return litellm.AuthenticationError("invalid api key", llm_provider="openai", model="m")


def server(text: str = "boom") -> Exception:
    return litellm.InternalServerError(text, llm_provider="openai", model="m")


def test_litellm_errors_classify_by_their_own_class():
    assert (classify(auth()).kind, classify(auth()).transient) == ("auth", False)
    assert (classify(server()).kind, classify(server()).transient) == ("server", True)
    assert classify(server("Connection error.")).kind == "connection"


@pytest.mark.parametrize("wrapper, inner, kind, transient", [
    # DSPy reports both of these as a server error; the LiteLLM failure behind it says which it was
    ("LMServerError", lambda: server("Connection error."), "connection", True),
    ("LMServerError", lambda: server("missing credentials"), "auth", False),
    ("LMAuthError", auth, "auth", False),
])
def test_a_dspy_wrapper_is_classified_by_the_litellm_failure_behind_it(wrapper, inner, kind, transient):
    exc = raised_from(getattr(dspy_exceptions, wrapper)("wrapped"), inner())
    failure = classify(exc)
    assert (failure.kind, failure.transient) == (kind, transient)


def test_the_litellm_failure_is_found_behind_dspy_s_own_intermediate_error():
    # the chain seen from DSPy 3.4.1: LMServerError <- lm15 ServerError <- litellm InternalServerError
    middle = raised_from(RuntimeError("lm15 ServerError"), server("Connection error."))
    exc = raised_from(dspy_exceptions.LMServerError("wrapped"), middle)
    assert classify(exc).kind == "connection"


@pytest.mark.parametrize("name, kind, transient", [
    ("LMAuthError", "auth", False), ("LMRateLimitError", "rate_limit", True),
    ("LMTransportError", "connection", True), ("LMTimeoutError", "timeout", True),
    ("LMServerError", "server", True), ("LMInvalidRequestError", "bad_request", False),
    ("LMUnsupportedModelError", "not_found", False), ("LMNotConfiguredError", "auth", False),
])
def test_a_dspy_error_from_its_own_client_classifies_by_its_class(name, kind, transient):
    if not hasattr(dspy_exceptions, name):
        pytest.skip(f"this DSPy has no {name}")
    failure = classify(getattr(dspy_exceptions, name)("from DSPy's own client", retry_after=500))
    assert (failure.kind, failure.transient) == (kind, transient)
    assert failure.retry_after_s == 60.0  # what the provider asked, capped
    assert "from DSPy's own client" in failure.detail


def test_a_bug_raised_while_handling_a_provider_failure_is_not_a_model_failure():
    assert classify(raised_from(KeyError("slot"), auth())) is None
    assert classify(ValueError("plain bug")) is None
