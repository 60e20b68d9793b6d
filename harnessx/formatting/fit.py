"""A table printed to fit the terminal's width, without cutting a cell.

When every column fits at its natural width, the table prints as a boxed rich table, one line per
row. When it does not, the widest columns are narrowed and their cells wrap at spaces inside the
box, as long as no word has to be broken and no cell takes more than `MAX_ROW_LINES` lines; the box
keeps its borders. When even that does not fit, each row becomes a block: its first cell (the id, harness or metric) on a line of
its own, then the other cells as `header: value` fields packed onto indented lines; a field longer
than a line wraps at spaces with a hanging indent. No cell is ever shortened with `…`, and no field
takes more than a few lines (`MAX_ROW_LINES` checks that for the tables the CLI prints).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.errors import MarkupError
from rich.table import Table as RichTable
from rich.text import Text

MAX_ROW_LINES = 3
INDENT = 2       # fields of a stacked block
HANG = 4         # the wrapped lines of one field
GAP = "   "      # between two fields packed on one line


def as_text(cell: str) -> Text:
    """A cell as rich prints it in a table (markup read, as `Table.add_row` does)."""
    try:
        return Text.from_markup(cell)
    except MarkupError:
        return Text(cell)


def _columns(headers: list[str], rows: Iterable[list[str]]) -> list[list[str]]:
    """Each column's header and cells, as plain text."""
    columns = [[as_text(h).plain] for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            columns[i].append(as_text(cell).plain)
    return columns


def _frame(n_columns: int) -> int:
    """What the box (heavy-head, padding 1) adds to its columns' widths."""
    return 3 * n_columns + 1


def natural_width(headers: list[str], rows: Iterable[list[str]]) -> int:
    """Width of the boxed rich table with every cell on one line."""
    columns = _columns(headers, rows)
    return sum(max(cell_len(line) for text in col for line in text.split("\n")) for col in columns) \
        + _frame(len(columns))


def _lines_at(text: str, width: int) -> int:
    """Lines `text` takes wrapped at spaces in `width` columns (its words all fit)."""
    total = 0
    for line in text.split("\n"):
        used, count = 0, 1
        for word in line.split():
            need = cell_len(word) if used == 0 else used + 1 + cell_len(word)
            if need <= width:
                used = need
            else:
                count, used = count + 1, cell_len(word)
        total += count
    return total


def wrapped_widths(headers: list[str], rows: list[list[str]], width: int) -> list[int] | None:
    """Column widths that make the boxed table fit `width` with each cell wrapped at spaces, no word
    broken, no cell over MAX_ROW_LINES lines and the first column whole (the widest of the others
    narrowed first); None if none do."""
    columns = _columns(headers, rows)
    widths = [max(cell_len(line) for text in col for line in text.split("\n")) for col in columns]
    floors = [max([cell_len(w) for text in col for w in text.split()] or [1]) for col in columns]
    floors[0] = widths[0]  # a row's first cell (its id, metric or harness) stays on one line
    budget = width - _frame(len(columns))
    if sum(floors) > budget:
        return None
    while sum(widths) > budget:
        i = max((j for j in range(len(widths)) if widths[j] > floors[j]), key=lambda j: widths[j] - floors[j])
        widths[i] -= 1
    if any(_lines_at(text, w) > MAX_ROW_LINES for col, w in zip(columns, widths) for text in col):
        return None
    return widths


def row_lines(row: list[str]) -> int:
    return max((as_text(c).plain.count("\n") + 1 for c in row), default=1)


def fits(headers: list[str], rows: list[list[str]], width: int) -> bool:
    return natural_width(headers, rows) <= width and all(row_lines(r) <= MAX_ROW_LINES for r in rows)


def _wrap(console: Console, text: Text, width: int, hang: int) -> list[Text]:
    """`text` wrapped at spaces to `width`, the lines after the first indented by `hang`."""
    first, *rest = text.wrap(console, max(width, 10), overflow="fold") or [Text("")]
    if not rest:
        return [first]
    tail = Text(" ").join(rest)
    return [first, *(Text(" " * hang) + line for line in tail.wrap(console, max(width - hang, 10), overflow="fold"))]


def stacked(console: Console, headers: list[str], rows: list[list[str]], width: int) -> Iterator[Text]:
    """One block per row: the first cell, then `header: value` fields packed onto indented lines."""
    pad = " " * INDENT
    for row in rows:
        key = as_text(row[0]) if row else Text("")
        key.stylize("bold")
        yield from _wrap(console, key, width, HANG)
        line: Text | None = None
        for header, cell in zip(headers[1:], row[1:]):
            value = as_text(cell)
            if not value.plain.strip():
                continue
            field = (Text(f"{as_text(header).plain}: ", style="dim") + value) if header.strip() else value
            field = Text(" ").join(_one_line(field))
            if line is not None and line.cell_len + len(GAP) + field.cell_len <= width:
                line.append(GAP)
                line.append_text(field)
                continue
            if line is not None:
                yield line
            if INDENT + field.cell_len <= width:
                line = Text(pad) + field
            else:
                line = None
                yield from (Text(pad) + part for part in _wrap(console, field, width - INDENT, HANG - INDENT))
        if line is not None:
            yield line


def _one_line(text: Text) -> list[Text]:
    """A multi-line cell's lines, to join on one field line (wrapping happens afterwards)."""
    return text.split("\n") if "\n" in text.plain else [text]


class FittedTable:
    """A rich renderable: the table as a rich table when it fits the width it is printed at, else
    stacked (title, blocks, notes), so the layout follows the console it is printed on."""

    def __init__(self, title: str, headers: list[str], rows: list[list[str]], notes: list[str],
                 justify: list[str] | None = None):
        self.title, self.headers, self.rows, self.notes = title, headers, rows, notes
        self.justify = justify or []

    def grid(self, widths: list[int] | None = None) -> RichTable:
        """The boxed table; with `widths`, each column that wide, its cells wrapped at spaces."""
        table = RichTable(title=self.title or None, caption="\n".join(self.notes) or None,
                          title_justify="left", caption_justify="left")
        for i, header in enumerate(self.headers):
            table.add_column(header, justify=self.justify[i] if i < len(self.justify) else "left",
                             width=widths[i] if widths else None, overflow="fold")
        for row in self.rows:
            table.add_row(*row)
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if fits(self.headers, self.rows, width):
            yield self.grid()
            return
        if all(row_lines(r) <= MAX_ROW_LINES for r in self.rows) and \
                (widths := wrapped_widths(self.headers, self.rows, width)) is not None:
            yield self.grid(widths)
            return
        if self.title:
            yield from _wrap(console, Text(self.title, style="table.title"), width, 0)
        yield from stacked(console, self.headers, self.rows, width)
        for note in self.notes:
            yield from _wrap(console, Text(note, style="table.caption"), width, 0)
