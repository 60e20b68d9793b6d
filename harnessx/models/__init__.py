"""The model layer: every call goes through LiteLLM; offline providers are LiteLLM custom providers.

The client (and LiteLLM with it) is imported on first use of a name from it, so a module that needs
only the default model or the reasoning-effort check (the CLI's option defaults, the harness) stays
light."""

from __future__ import annotations

from typing import Any

from harnessx.models.defaults import DEFAULT_MODEL

_FROM_CLIENT = ("ModelClient", "ModelReply", "Usage")
__all__ = ["DEFAULT_MODEL", *_FROM_CLIENT]


def __getattr__(name: str) -> Any:
    if name in _FROM_CLIENT:
        from harnessx.models import client

        return getattr(client, name)
    raise AttributeError(f"module 'harnessx.models' has no attribute {name!r}")
