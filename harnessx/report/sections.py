"""Report sections: the tables and figures of one result (comparison, belief, challenge, search),
added to a Document; `write_result` writes one result as JSON + Markdown + HTML + PNGs."""

from __future__ import annotations

import json
from pathlib import Path

from harnessx.io_write import write_atomic
from harnessx.report import plots
from harnessx.report.document import Document, Figure
from harnessx.report.tables import belief_tables, challenge_tables, compare_tables, model_line

FIGURES = "figures"


def compare_section(doc: Document, data: dict, out_dir: Path) -> None:
    doc.add(*compare_tables(data))
    note = model_line(data["model"], data["simulated"])
    for split, block in data["splits"].items():
        name = f"{FIGURES}/family_bars-{split}.png"
        plots.family_bars(block, out_dir / name, note)
        doc.add(Figure(name, f"Relaxed SA by family on the {split} split, with Wilson 95% CIs and n"))


def belief_section(doc: Document, data: dict, out_dir: Path) -> None:
    doc.add(*belief_tables(data))
    name = f"{FIGURES}/reliability-{data['split']}.png"
    plots.reliability_diagram(data, out_dir / name, model_line(data["model"], data["simulated"]))
    doc.add(Figure(name, f"Reliability diagram on the {data['split']} split (points: bins with their n)"))


def challenge_section(doc: Document, data: dict, out_dir: Path) -> None:
    doc.add(*challenge_tables(data))
    name = f"{FIGURES}/challenge-{data['split']}.png"
    plots.challenge_transitions(data, out_dir / name, model_line(data["model"], data["simulated"]))
    doc.add(Figure(name, "Challenge transitions: mean ± sample SD over replicates"))


SECTIONS = {"compare": compare_section, "eval": compare_section, "belief": belief_section,
            "challenge": challenge_section}


def write_result(kind: str, data: dict, out_dir: Path, stem: str, title: str) -> dict[str, Path]:
    """`<stem>.json`, `<stem>.md`, `<stem>.html` and figures under `out_dir`."""
    json_path = write_atomic(out_dir / f"{stem}.json", json.dumps(data, indent=2, default=str))
    doc = Document(title).para(model_line(data["model"], data["simulated"]), banner=data["simulated"])
    SECTIONS[kind](doc, data, out_dir)
    md, page = doc.write(out_dir, stem)
    return {"json": json_path, "markdown": md, "html": page}
