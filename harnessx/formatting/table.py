"""A table of formatted cells, printable with rich (fitted to the console's width) and writable as
Markdown; and the line that names the model a table's numbers come from."""

from __future__ import annotations

from dataclasses import dataclass, field

from harnessx.formatting.fit import FittedTable


@dataclass(frozen=True)
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    justify: list[str] = field(default_factory=list)  # per column: left (default), right or center

    def rich(self) -> FittedTable:
        """For the console: a rich table when it fits the width it is printed at, else stacked blocks."""
        return FittedTable(self.title, self.headers, self.rows, self.notes, self.justify)

    def markdown(self) -> str:
        esc = lambda cell: cell.replace("|", "\\|")  # noqa: E731
        lines = [f"**{self.title}**", "", "| " + " | ".join(map(esc, self.headers)) + " |",
                 "|" + "---|" * len(self.headers)]
        lines += ["| " + " | ".join(map(esc, row)) + " |" for row in self.rows]
        return "\n".join(lines + [""] + [f"_{n}_" for n in self.notes])


def model_line(model: str, simulated: bool) -> str:
    return f"model: {model}" + (" — SIMULATED agent (pipeline/demo output, not a model's result)" if simulated else "")
