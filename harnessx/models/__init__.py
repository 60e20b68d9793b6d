"""The model layer: every call goes through LiteLLM; offline providers are LiteLLM custom providers."""

from harnessx.models.client import DEFAULT_MODEL, ModelClient, ModelReply, Usage

__all__ = ["DEFAULT_MODEL", "ModelClient", "ModelReply", "Usage"]
