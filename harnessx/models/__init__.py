"""The model layer: every call goes through LiteLLM; offline providers are LiteLLM custom providers."""

from harnessx.models.client import ModelClient, ModelReply, Usage

__all__ = ["ModelClient", "ModelReply", "Usage"]
