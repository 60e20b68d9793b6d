"""Every command's `--help` at 80 columns (#44): no line wider than the terminal, and no word broken
across lines (each word printed at 80 columns is a word of the same help printed wide, where nothing
wraps). Generated from the CLI itself: every group and every command the root group lists."""

from __future__ import annotations

import pytest
import typer
from rich.cells import cell_len
from typer._click.core import Context
from typer.testing import CliRunner

from harnessx.cli.helptext import reflow
from harnessx.cli.main import app

WIDTH = 80
WIDE = 1000
BOX = str.maketrans({c: " " for c in "│╭╮╰╯─┃┏┓┗┛━"})


def command_paths() -> list[list[str]]:
    root = typer.main.get_command(app)
    found: list[list[str]] = [[]]

    def walk(cmd, path):
        if hasattr(cmd, "list_commands"):
            for name in cmd.list_commands(Context(cmd)):
                found.append([*path, name])
                walk(cmd.get_command(Context(cmd), name), [*path, name])

    walk(root, [])
    return found


def help_at(path: list[str], columns: int) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


def words(text: str) -> set[str]:
    return set(text.translate(BOX).split())


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "harnessx")
def test_help_fits_80_columns_without_breaking_a_word(path):
    narrow, wide = help_at(path, WIDTH), help_at(path, WIDE)
    over = [line for line in narrow.splitlines() if cell_len(line.rstrip()) > WIDTH]
    assert not over, f"{len(over)} lines over {WIDTH} columns: {over[:3]}"
    broken = sorted(words(narrow) - words(wide))
    assert not broken, f"words broken at {WIDTH} columns: {broken[:10]}"
    ragged = ragged_breaks(narrow)
    assert not ragged, f"lines broken before the width: {ragged[:3]}"


LIST = ("- ", "* ", "| ")
TEXT_WIDTH = WIDTH - 2  # typer's help text: a space of margin each side


def ragged_breaks(text: str) -> list[str]:
    """Description lines (between the usage line and the first panel) that end although the next
    line's first word would have fitted: a line break the source text made, not the width."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))
    body = [line.strip() for line in lines[start:end]]
    out = []
    for line, after in zip(body, body[1:]):
        if line and after and not after.startswith(LIST) and not after[0].isdigit() \
                and cell_len(line) + 1 + cell_len(after.split()[0]) <= TEXT_WIDTH:
            out.append(f"{line!r} / {after.split()[0]!r}")
    return out


def test_a_docstrings_line_breaks_are_dropped_inside_a_paragraph_and_kept_in_a_list():
    text = """First line
    goes on.

    A paragraph written
    over three
    lines.

    - a list item
    - another

    \b
    kept  as
    is"""
    assert reflow(text) == ("First line goes on.\n\nA paragraph written over three lines.\n\n- a list item\n"
                            "- another\n\n\b\nkept  as\nis")
