"""A server on this machine needs no key from the user.

An OpenAI-compatible server on a loopback address (`harnessx local serve`, a local vLLM or llama.cpp)
usually checks no key, but LiteLLM refuses to call an `openai/...` model without OPENAI_API_KEY. When
`--api-base` is a loopback address and neither the caller nor the environment gives the key the
provider asks for, the client sends a placeholder. A key that is set (a server started with its own
`--api-key`) is used as it is.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlparse

PLACEHOLDER_KEY = "harnessx-loopback"  # what a loopback server receives when no key is set


def is_loopback(api_base: str | None) -> bool:
    """Whether `api_base` names this machine: localhost, 127.0.0.0/8 or ::1."""
    if not api_base:
        return False
    host = (urlparse(api_base).hostname or "").strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def loopback_key(model: str, api_base: str | None, api_key: str | None) -> str | None:
    """The key to send: the caller's; else, for a loopback server whose provider's key is not in the
    environment, the placeholder; else None (LiteLLM reads the environment)."""
    if api_key or not is_loopback(api_base):
        return api_key
    import litellm

    try:
        missing = not litellm.validate_environment(model=model, api_base=api_base).get("keys_in_environment", True)
    except Exception:  # noqa: BLE001 - a model LiteLLM cannot place: let the call itself say why
        return None
    return PLACEHOLDER_KEY if missing else None
