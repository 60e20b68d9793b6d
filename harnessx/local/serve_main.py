"""`python -m harnessx.local.serve_main [llama_cpp.server options]`: llama.cpp's OpenAI-compatible
server with the `harnessx-tools` chat format (constrained tool calls, harnessx.local.chat)
registered and weights loaded without extra buffer types (see engine.plain_weight_buffers).
`harnessx local serve` starts it; the options are llama.cpp's own."""

from __future__ import annotations

from harnessx.local.chat import register_chat_format
from harnessx.local.engine import plain_weight_buffers


def main() -> None:
    register_chat_format()
    from llama_cpp.server.__main__ import main as server_main

    with plain_weight_buffers():  # for the whole process: the server loads its model on startup
        server_main()


if __name__ == "__main__":
    main()
