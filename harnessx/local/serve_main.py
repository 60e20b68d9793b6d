"""`python -m harnessx.local.serve_main [llama_cpp.server options]`: llama.cpp's OpenAI-compatible
server with the `harnessx-tools` chat format (constrained tool calls, harnessx.local.chat)
registered, weights loaded without extra buffer types (see engine.plain_weight_buffers) and the
in-process engine's repeat penalty as the requests' default (a request may still set its own).
`harnessx local serve` starts it; the options are llama.cpp's own."""

from __future__ import annotations

from harnessx.local.chat import register_chat_format
from harnessx.local.engine import REPEAT_PENALTY, plain_weight_buffers


def decode_like_in_process() -> None:
    """Make the server's request default repeat penalty the in-process engine's. Done before the
    server's routes are built (they validate requests with these models)."""
    from llama_cpp.server import types

    for request in (types.CreateCompletionRequest, types.CreateChatCompletionRequest):
        request.model_fields["repeat_penalty"].default = REPEAT_PENALTY
        request.model_rebuild(force=True)


def main() -> None:
    register_chat_format()
    decode_like_in_process()
    from llama_cpp.server.__main__ import main as server_main

    with plain_weight_buffers():  # for the whole process: the server loads its model on startup
        server_main()


if __name__ == "__main__":
    main()
