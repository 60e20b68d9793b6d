"""An MCP server (stdio) that breaks on request, for the MCP environment's failure tests: `echo`
answers, `die` ends the process mid-call, `hang` never answers. With the argument `--no-start` it
exits before speaking MCP at all."""

from __future__ import annotations

import os
import sys

if "--no-start" in sys.argv:
    print("faulty: refusing to start (asked to)", file=sys.stderr)
    sys.exit(3)

import anyio  # noqa: E402 - only when the server starts
from mcp.server.fastmcp import FastMCP  # noqa: E402
from mcp.types import ToolAnnotations  # noqa: E402

server = FastMCP("faulty")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Return the text."""
    return text


@server.tool()
def die() -> str:
    """End the server process without answering."""
    print("faulty: dying (asked to)", file=sys.stderr, flush=True)
    os._exit(5)


@server.tool()
async def hang() -> str:
    """Never answer."""
    await anyio.Event().wait()
    return "unreachable"


if __name__ == "__main__":
    server.run()
