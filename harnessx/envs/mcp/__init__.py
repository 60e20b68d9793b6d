"""The MCP environment (`--env mcp`): tools from any MCP server, tasks from the user's file.

`spec` reads the suite and task files, `session` talks to the server (the official `mcp` SDK,
`pip install -e '.[mcp]'`), `env` runs one episode, `twins` builds the blocked twins (FeasiGen's
critical-tool masking for infeasible ones), `suite` puts them together. docs/environments/mcp.md
describes the task format field by field.
"""

from harnessx.envs.mcp.suite import MCPSuite

__all__ = ["MCPSuite"]
