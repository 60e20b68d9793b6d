"""What a failed model call was: a provider's failure (auth, connection, timeout, rate limit, server
error, bad request), classified so that it is excluded as a *model failure*, never scored as the
agent failing, and retried only when a retry can help (honouring the provider's Retry-After).

DSPy 3.4 and later (the `llm` proposer's engine) raise their own `LMError` classes *from* LiteLLM's:
such a wrapper is classified by the LiteLLM failure behind it, or by its own class when its own client
made the call. Only that known wrapper is looked through: an arbitrary exception raised while a
provider failure was being handled is a bug, not a model failure."""

from __future__ import annotations

from dataclasses import dataclass

import litellm

# (exception class, kind, transient), most specific first: LiteLLM's classes subclass each other.
_CLASSES: tuple[tuple[type[BaseException], str, bool], ...] = (
    (litellm.AuthenticationError, "auth", False),
    (litellm.PermissionDeniedError, "auth", False),
    (litellm.NotFoundError, "not_found", False),
    (litellm.ContextWindowExceededError, "bad_request", False),
    (litellm.BadRequestError, "bad_request", False),
    (litellm.RateLimitError, "rate_limit", True),
    (litellm.Timeout, "timeout", True),
    (litellm.APIConnectionError, "connection", True),
    (litellm.ServiceUnavailableError, "server", True),
    (litellm.BadGatewayError, "server", True),
    (litellm.InternalServerError, "server", True),
    (litellm.APIResponseValidationError, "malformed_response", True),
    (litellm.APIError, "provider", True),
)
# DSPy's own LM error classes (by name, most specific first along the class's MRO), for a DSPy error
# with no LiteLLM failure behind it; any other LMError is a provider failure that a retry won't mend.
_DSPY_CLASSES: dict[str, tuple[str, bool]] = {
    "LMAuthError": ("auth", False), "LMBillingError": ("auth", False), "LMNotConfiguredError": ("auth", False),
    "LMConfigurationError": ("auth", False), "LMUnsupportedModelError": ("not_found", False),
    "ContextWindowExceededError": ("bad_request", False), "LMInvalidRequestError": ("bad_request", False),
    "LMUnsupportedFeatureError": ("bad_request", False), "LMRateLimitError": ("rate_limit", True),
    "LMTimeoutError": ("timeout", True), "LMTransportError": ("connection", True),
    "LMServerError": ("server", True), "LMError": ("provider", False),
}
MAX_RETRY_AFTER_S = 60.0


@dataclass(frozen=True)
class Failure:
    kind: str            # auth, not_found, bad_request, rate_limit, timeout, connection, server, ...
    transient: bool      # worth retrying
    retry_after_s: float | None  # what the provider asked us to wait, if it said
    detail: str


def classify(exc: BaseException) -> Failure | None:
    """The failure a provider exception stands for; None when it is not a provider failure (a bug)."""
    failure = _litellm_failure(exc)
    if failure is not None or not _is_dspy_lm_error(exc):
        return failure
    for link in _causes(exc):  # DSPy's wrapper: the LiteLLM failure it was raised from, if any
        if (failure := _litellm_failure(link)) is not None:
            return failure
    for cls in type(exc).__mro__:  # DSPy's own client made the call
        if cls.__name__ in _DSPY_CLASSES:
            kind, transient = _DSPY_CLASSES[cls.__name__]
            return Failure(kind, transient, _capped(getattr(exc, "retry_after", None)), short(exc))
    return None


def _litellm_failure(exc: BaseException) -> Failure | None:
    for cls, kind, transient in _CLASSES:
        if isinstance(exc, cls):
            text = str(exc).lower()
            if kind == "server" and "missing credentials" in text:
                kind, transient = "auth", False  # LiteLLM reports a missing key as a 500
            elif kind == "server" and ("connection error" in text or "connect" in text and "refused" in text):
                kind = "connection"  # ... and a refused connection as one too
            return Failure(kind, transient, retry_after(exc), short(exc))
    return None


def _is_dspy_lm_error(exc: BaseException) -> bool:
    return any(cls.__name__ == "LMError" and cls.__module__.startswith("dspy.") for cls in type(exc).__mro__)


def _causes(exc: BaseException, depth: int = 8) -> list[BaseException]:
    """The exceptions `exc` was raised from or while handling, nearest first (cycles and depth bounded)."""
    def parent(e: BaseException) -> BaseException | None:
        return e.__cause__ or (None if e.__suppress_context__ else e.__context__)

    out: list[BaseException] = []
    link = parent(exc)
    while link is not None and link not in out and len(out) < depth:
        out.append(link)
        link = parent(link)
    return out


def retry_after(exc: BaseException) -> float | None:
    """Seconds from the response's Retry-After header (delta-seconds form), capped."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    return _capped(value)


def _capped(value: object) -> float | None:
    """A wait in seconds, within [0, MAX_RETRY_AFTER_S]; None when there is none or it is not a number."""
    if value is None:
        return None
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER_S)
    except (TypeError, ValueError):
        return None


def short(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
