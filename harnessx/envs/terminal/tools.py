"""The agent's tools in the terminal environment and how their results read."""

from __future__ import annotations

from harnessx.envs.base import ToolSpec
from harnessx.envs.terminal.sandbox.base import ExecResult

STREAM_LIMIT = 8000  # characters kept per stream: the first and last halves
DEFAULT_TIMEOUT = 180.0

TOOLS = [
    ToolSpec(name="bash", description=(
        "Run a bash command in the task's Linux sandbox (working directory /app at first, no network). All "
        "calls share one shell: the working directory, variables and background processes persist between "
        "calls. A command that runs past its timeout is interrupted; one that exits the shell ends it and the "
        "next call starts a fresh shell (the result says so). Returns the exit code, stdout and stderr (long "
        "output is truncated in the middle)."),
        parameters={"type": "object", "properties": {
            "command": {"type": "string", "description": "the bash command(s) to run"},
            "timeout": {"type": "number", "description": f"seconds before the command is killed "
                                                         f"(default {int(DEFAULT_TIMEOUT)})"}},
            "required": ["command"]}),
    ToolSpec(name="read_file", description="Read a text file. Relative paths are relative to /app.",
             parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    ToolSpec(name="write_file", description=("Write (create or replace) a text file. Relative paths are "
                                             "relative to /app; parent directories are created."),
             parameters={"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                         "required": ["path", "content"]}),
]


def truncate(text: str, limit: int = STREAM_LIMIT) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters truncated ...]\n{text[-half:]}"


def render_result(result: ExecResult, timeout: float) -> str:
    parts = [f"exit_code: {result.exit_code}"]
    parts += [f"({note})" for note in result.notes]  # what happened to the shell: kept, restarted, exited
    if result.timed_out and not result.notes:
        parts.append(f"(killed after the {timeout:g}s timeout)")
    parts.append("stdout:\n" + truncate(result.stdout))
    if result.stderr:
        parts.append("stderr:\n" + truncate(result.stderr))
    return "\n".join(parts)
