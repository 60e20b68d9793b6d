"""Help text that wraps at the terminal's width: a docstring's own line breaks are removed inside a
paragraph, so `--help` fills each line up to the width instead of breaking where the source did.

Paragraphs are kept as written where their line breaks mean something: a list (lines starting with
`-`, `*` or `1.`), an indented block, a table row, or a paragraph marked with click's `\\b`.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

KEEP = re.compile(r"^(\s|[-*|]\s|\d+[.)]\s)|^\x08")  # \x08: click's \b (keep this paragraph)


def reflow(text: str | None) -> str | None:
    """`text` with single line breaks inside ordinary paragraphs turned into spaces."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    out = []
    for paragraph in paragraphs:
        lines = paragraph.split("\n")
        if len(lines) > 1 and not any(KEEP.match(line) for line in lines):
            paragraph = " ".join(line.strip() for line in lines)
        out.append(paragraph)
    return "\n\n".join(out)


def reflow_help(command: Any) -> Any:
    """Reflow the help of `command` and of its subcommands (a group's)."""
    command.help = reflow(command.help)
    for sub in getattr(command, "commands", {}).values():
        reflow_help(sub)
    return command
