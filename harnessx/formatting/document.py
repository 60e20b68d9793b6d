"""A report document: headings, paragraphs, tables and figures, written as Markdown and as an HTML
page that opens offline (plain HTML and inline CSS; figures referenced by relative path)."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from harnessx.io_write import write_atomic

from harnessx.formatting.table import Table

CSS = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
       "table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}"
       "td,th{border:1px solid #ccc;padding:3px 7px;text-align:left}th{background:#f2f2f2}"
       ".banner{background:#fff3cd;border:1px solid #e0c060;padding:.5em 1em}img{max-width:100%}"
       "caption{caption-side:top;text-align:left;font-weight:bold;padding:4px 0}.note{color:#555;font-size:12px}"
       "pre{white-space:pre-wrap;overflow-wrap:anywhere}td{overflow-wrap:anywhere}")  # long lines wrap: nothing overflows


@dataclass(frozen=True)
class Figure:
    path: str      # relative to the document
    caption: str


@dataclass
class Document:
    title: str
    blocks: list = field(default_factory=list)

    def heading(self, text: str) -> "Document":
        self.blocks.append(("h", text))
        return self

    def para(self, text: str, banner: bool = False) -> "Document":
        self.blocks.append(("banner" if banner else "p", text))
        return self

    def code(self, text: str) -> "Document":
        """A preformatted block (a diff)."""
        self.blocks.append(("pre", text))
        return self

    def add(self, *items: Table | Figure) -> "Document":
        self.blocks.extend(items)
        return self

    def markdown(self) -> str:
        parts = [f"# {self.title}"]
        for block in self.blocks:
            if isinstance(block, Table):
                parts.append(block.markdown())
            elif isinstance(block, Figure):
                parts.append(f"![{block.caption}]({block.path})\n\n_{block.caption}_")
            elif block[0] == "h":
                parts.append(f"## {block[1]}")
            elif block[0] == "pre":
                parts.append(f"```diff\n{block[1]}\n```")
            else:
                parts.append(f"> **{block[1]}**" if block[0] == "banner" else block[1])
        return "\n\n".join(parts) + "\n"

    def html(self) -> str:
        e = html.escape
        body = [f"<h1>{e(self.title)}</h1>"]
        for block in self.blocks:
            if isinstance(block, Table):
                head = "".join(f"<th>{e(h)}</th>" for h in block.headers)
                rows = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in block.rows)
                notes = "".join(f'<p class="note">{e(n)}</p>' for n in block.notes)
                body.append(f"<table><caption>{e(block.title)}</caption><tr>{head}</tr>{rows}</table>{notes}")
            elif isinstance(block, Figure):
                body.append(f'<figure><img src="{e(block.path)}" alt="{e(block.caption)}">'
                            f"<figcaption>{e(block.caption)}</figcaption></figure>")
            elif block[0] == "h":
                body.append(f"<h2>{e(block[1])}</h2>")
            elif block[0] == "pre":
                body.append(f"<pre>{e(block[1])}</pre>")
            else:
                body.append(f'<p class="banner">{e(block[1])}</p>' if block[0] == "banner" else f"<p>{e(block[1])}</p>")
        return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{e(self.title)}</title>'
                f"<style>{CSS}</style></head><body>{''.join(body)}</body></html>\n")

    def write(self, out_dir: Path, stem: str = "report") -> tuple[Path, Path]:
        md, page = out_dir / f"{stem}.md", out_dir / f"{stem}.html"
        write_atomic(md, self.markdown())  # whole or absent, never half-written
        write_atomic(page, self.html())
        return md, page
