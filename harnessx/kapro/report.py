"""`kapro report`: the KAPRO tables, a quadrant plot and the distractor deltas as Markdown + PNG +
offline HTML, from the JSON `kapro eval` writes (re-runnable on any saved result)."""

from __future__ import annotations

import json
from pathlib import Path

from harnessx.errors import InputError
from harnessx.io_read import read_json
from harnessx.io_write import write_atomic
from harnessx.kapro.metrics import QUADRANT_LABELS, QUADRANTS
from harnessx.kapro.tables import kapro_tables
from harnessx.formatting.document import Document, Figure
from harnessx.formatting.figures import plt
from harnessx.formatting.figures import save_figure as _save
from harnessx.formatting.table import model_line

RESULT = "kapro-eval.json"


def quadrant_plot(data: dict, path: Path) -> Path:
    """Stacked quadrant shares per subspace (base, and with distractors when run), n on each bar."""
    runs = [("base", data["metrics"])] + ([(f"+{data['distractor_run']['distractors']} distractors",
                                             data["distractor_run"]["metrics"])] if data.get("distractor_run") else [])
    colours = {"kc_ac": "tab:green", "kc_aw": "tab:orange", "kw_ac": "tab:blue", "kw_aw": "tab:red"}
    labels, stacks, ns = [], [], []
    for name, m in runs:
        for sub, block in m["per_subspace"].items():
            labels.append(f"{sub}\n{name}" if len(runs) > 1 else sub)
            stacks.append([block[q]["value"] or 0.0 for q in QUADRANTS])
            ns.append(block["n_valid"])
    fig, ax = plt.subplots(figsize=(max(5, 1.4 * len(labels)), 4))
    bottoms = [0.0] * len(labels)
    for qi, q in enumerate(QUADRANTS):
        heights = [s[qi] for s in stacks]
        ax.bar(range(len(labels)), heights, bottom=bottoms, color=colours[q], label=QUADRANT_LABELS[q])
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    for i, n in enumerate(ns):
        ax.text(i, 1.01, f"n={n}", ha="center", fontsize=8)
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set(ylim=(0, 1.1), ylabel="share of valid tasks", title="Know–act quadrants per subspace (exact set match)")
    ax.legend(fontsize=8, loc="lower right")
    return _save(fig, path, model_line(data["model"], data["simulated"]))


def load_result(path: str | Path) -> dict:
    path = Path(path)
    file = path / RESULT if path.is_dir() else path
    if not file.is_file():
        raise InputError(str(path), f"no {RESULT}", "a `harnessx kapro eval` output dir or its JSON")
    data = read_json(file, "a KAPRO result (kapro-eval.json written by `harnessx kapro eval`)")
    if not isinstance(data, dict) or data.get("kind") != "kapro-eval":
        raise InputError(str(file), "not a KAPRO result (field 'kind')", "kapro-eval")
    return data


def write_report(data: dict, out_dir: Path) -> dict[str, Path]:
    json_path = write_atomic(out_dir / RESULT, json.dumps(data, indent=2))
    doc = Document(f"KAPRO: {data['harness']['name']} ({data['harness']['hash']}) on the {data['split']} split")
    doc.para(model_line(data["model"], data["simulated"]), banner=data["simulated"])
    doc.para(f"Tasks: {data['n_tasks']} ({data['source']}), {data['epochs']} epoch(s); pass judge: {data['judge']}.")
    if data.get("unread"):
        doc.para("Records not read (one line per file): " + "; ".join(data["unread"]))
    figure = quadrant_plot(data, out_dir / "figures" / "kapro-quadrants.png")
    doc.add(*kapro_tables(data), Figure(str(figure.relative_to(out_dir)), "Know–act quadrants per subspace, with n"))
    md, page = doc.write(out_dir, "kapro-report")
    return {"json": json_path, "markdown": md, "html": page, "png": figure}
