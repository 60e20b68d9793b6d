"""HarnessX: search the harness around a fixed LLM agent so that it solves feasible tasks and
recognises blocked ones, deferring for the right reason."""

import os

# Never fetch LiteLLM's cost map from the network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
