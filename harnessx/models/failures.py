"""What a failed model call was: a provider's failure (auth, connection, timeout, rate limit, server
error, bad request), classified so that it is excluded as a *model failure*, never scored as the
agent failing, and retried only when a retry can help (honouring the provider's Retry-After)."""

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
MAX_RETRY_AFTER_S = 60.0


@dataclass(frozen=True)
class Failure:
    kind: str            # auth, not_found, bad_request, rate_limit, timeout, connection, server, ...
    transient: bool      # worth retrying
    retry_after_s: float | None  # what the provider asked us to wait, if it said
    detail: str


def classify(exc: BaseException) -> Failure | None:
    """The failure a provider exception stands for; None when it is not a provider failure (a bug)."""
    for cls, kind, transient in _CLASSES:
        if isinstance(exc, cls):
            text = str(exc).lower()
            if kind == "server" and "missing credentials" in text:
                kind, transient = "auth", False  # LiteLLM reports a missing key as a 500
            elif kind == "server" and ("connection error" in text or "connect" in text and "refused" in text):
                kind = "connection"  # ... and a refused connection as one too
            return Failure(kind, transient, retry_after(exc), short(exc))
    return None


def retry_after(exc: BaseException) -> float | None:
    """Seconds from the response's Retry-After header (delta-seconds form), capped."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    if value is None:
        return None
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER_S)
    except (TypeError, ValueError):
        return None


def short(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
