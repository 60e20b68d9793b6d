"""A table of formatted cells, printable with rich and writable as Markdown; and the line that names
the model a table's numbers come from."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.table import Table as RichTable


@dataclass(frozen=True)
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)

    def rich(self) -> RichTable:
        table = RichTable(*self.headers, title=self.title, caption="\n".join(self.notes) or None,
                          title_justify="left", caption_justify="left")
        for row in self.rows:
            table.add_row(*row)
        return table

    def markdown(self) -> str:
        esc = lambda cell: cell.replace("|", "\\|")  # noqa: E731
        lines = [f"**{self.title}**", "", "| " + " | ".join(map(esc, self.headers)) + " |",
                 "|" + "---|" * len(self.headers)]
        lines += ["| " + " | ".join(map(esc, row)) + " |" for row in self.rows]
        return "\n".join(lines + [""] + [f"_{n}_" for n in self.notes])


def model_line(model: str, simulated: bool) -> str:
    return f"model: {model}" + (" — SIMULATED agent (pipeline/demo output, not a model's result)" if simulated else "")
