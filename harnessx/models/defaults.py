"""Model defaults that need no model library: read by the CLI's option defaults without LiteLLM."""

DEFAULT_MODEL = "sim/baseline"  # the offline simulated agent, used when no model is configured
