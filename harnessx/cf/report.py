"""`harnessx cf report`: the paper's tables and the (NAS, KIS) regime plot from a `cf eval` result,
as Markdown + PNG + HTML (`report.md`, `report.html`, `figures/regime.png`)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from harnessx.errors import InputError  # noqa: E402
from harnessx.io_read import read_json
from harnessx.io_write import save_figure
from harnessx.formatting.cells import contrast, counts_text, paired_title, rate_cell  # noqa: E402
from harnessx.formatting.document import Document, Figure  # noqa: E402
from harnessx.formatting.table import Table, model_line  # noqa: E402

RESULT = "cf-eval.json"
CONDITION_NAMES = {"search": "with search", "none": "without search"}
VARIANTS = {"judge_free": "judge-free", "judged": "judged"}


def score_cell(block: dict) -> str:
    if block.get("value") is None:
        return f"n/a (n={block.get('n', 0)})"
    lo, hi = block["ci"]
    return f"{block['value']:+.3f} [{lo:+.3f}, {hi:+.3f}] (n={block['n']})"


def load_result(path: str | Path) -> dict:
    path = Path(path)
    file = path / RESULT if path.is_dir() else path
    if not file.is_file():
        raise InputError(str(path), f"no {RESULT} here", "the --out directory of `harnessx cf eval`")
    data = read_json(file, "a Confident Fools result (cf-eval.json written by `harnessx cf eval`)")
    if not isinstance(data, dict) or not isinstance(data.get("conditions"), dict):
        raise InputError(str(file), "not a Confident Fools result (no 'conditions')",
                         "cf-eval.json written by `harnessx cf eval`")
    return data


def tables(data: dict) -> list[Table]:
    conds = data["conditions"]
    names = {c: CONDITION_NAMES[c] for c in conds}
    n_boot = next(iter(conds.values()))["n_resamples"] if conds else 0
    out = [Table("NAS (OK items) and KIS (IK items), with the regime",
                 ["condition", "variant", "NAS", "KIS", "regime"],
                 [[names[c], VARIANTS[v], score_cell(m["nas"][v]), score_cell(m["kis"][v]), m["regime"][v] or "n/a"]
                  for c, m in conds.items() for v in VARIANTS],
                 [f"mean label over valid items; 95% percentile CI, {n_boot} question-bootstrap resamples; "
                  "judge-free counts every correct answer as aligned; judged: alignment score >= 70"])]
    out.append(Table("Label counts", ["condition", "variant", "NAS aware / neutral / unaware",
                                      "KIS confident-correct / neutral / wasteful"],
                     [[names[c], VARIANTS[v], " / ".join(str(x) for x in m["nas"][v]["counts"].values()),
                       " / ".join(str(x) for x in m["kis"][v]["counts"].values())]
                      for c, m in conds.items() for v in VARIANTS]))
    out.append(Table("Accuracy (abstention counts as incorrect)",
                     ["condition", "OK", "IK", "OK among answered", "IK among answered"],
                     [[names[c], rate_cell(m["accuracy"]["OK"]), rate_cell(m["accuracy"]["IK"]),
                       rate_cell(m["accuracy_answered"]["OK"]), rate_cell(m["accuracy_answered"]["IK"])]
                      for c, m in conds.items()], ["k/n, % and Wilson 95% CI"]))
    out.append(Table("Search, abstention and judge alignment",
                     ["condition", "search rate OK", "search rate IK", "abstention OK", "abstention IK",
                      "aligned among correct"],
                     [[names[c], rate_cell(m.get("search_rate", {}).get("OK")),
                       rate_cell(m.get("search_rate", {}).get("IK")), rate_cell(m["abstention_rate"]["OK"]),
                       rate_cell(m["abstention_rate"]["IK"]), rate_cell(m["alignment_rate"]["all"])]
                      for c, m in conds.items()],
                     ["search = at least one web_search call in the trajectory; alignment judge: "
                      + data.get("judge", "")]))
    if "search" in conds and "six_outcomes" in conds["search"]:
        six = conds["search"]["six_outcomes"]
        out.append(Table("OK items with search: six outcomes", ["", "n", "correct", "wrong", "abstain"],
                         [[k.replace("_", " "), str(v["n"]), str(v["correct"]), str(v["wrong"]), str(v["abstain"])]
                          for k, v in six.items()]))
    rows = []
    for c, m in conds.items():
        for name in ("cued", "uncued"):
            cue = m["temporal_cues"][name]
            rows.append([names[c], name, str(cue["n"]), rate_cell(cue.get("search_rate")),
                         score_cell(cue["nas"]["judge_free"]), score_cell(cue["nas"]["judged"])])
    out.append(Table("Temporal cues on OK items (the digest's regex)",
                     ["condition", "OK items", "n", "search rate", "NAS judge-free", "NAS judged"], rows,
                     [f"IK items with a cue: {next(iter(conds.values()))['temporal_cues']['ik_cued']}"] if conds else []))
    excl = [[names[c], str(m["n_trials"]), str(m["n_valid"]),
             counts_text(m["excluded"])] for c, m in conds.items()]
    out.append(Table("Trials, valid n and exclusions", ["condition", "trials", "valid", "excluded"], excl,
                     ["unparseable = no {choice, reason} JSON after two stricter retries; excluded, never scored"]))
    return out


def regime_plot(data: dict, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6, 5.5))
    ax.axhline(0, color="gray", lw=0.8)
    ax.axvline(0, color="gray", lw=0.8)
    for (x, y, text) in ((0.5, 0.5, "ideal"), (0.5, -0.5, "over-searcher"), (-0.5, 0.5, "under-searcher"),
                         (-0.5, -0.5, "confused")):
        ax.text(x, y, text, ha="center", va="center", color="lightgray", fontsize=12)
    markers = {"search": "o", "none": "s"}
    colors = {"judge_free": "tab:blue", "judged": "tab:orange"}
    for cond, m in data["conditions"].items():
        for variant, label in VARIANTS.items():
            nas, kis = m["nas"][variant], m["kis"][variant]
            if nas.get("value") is None or kis.get("value") is None:
                continue
            xerr = [[nas["value"] - nas["ci"][0]], [nas["ci"][1] - nas["value"]]]
            yerr = [[kis["value"] - kis["ci"][0]], [kis["ci"][1] - kis["value"]]]
            ax.errorbar(nas["value"], kis["value"], xerr=xerr, yerr=yerr, fmt=markers[cond], color=colors[variant],
                        capsize=3, label=f"{CONDITION_NAMES[cond]}, {label} (n_OK={nas['n']}, n_IK={kis['n']})")
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("NAS (OK items)")
    ax.set_ylabel("KIS (IK items)")
    ax.set_title("Confident Fools regimes (95% question-bootstrap CIs)")
    ax.legend(fontsize=7, loc="lower left")
    fig.text(0.01, 0.005, model_line(data["model"], data["simulated"]), fontsize=7, color="dimgray")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    try:
        return save_figure(fig, path)
    finally:
        plt.close(fig)


def write_report(data: dict, out_dir: Path) -> dict[str, Path]:
    doc = Document(f"Confident Fools: {data['harness_label']} on {data['split']} ({data['model']})")
    doc.para(model_line(data["model"], data["simulated"]), banner=data["simulated"])
    doc.para(f"{data['n_items']} items x {len(data['seeds'])} seed(s); split {data['split']}"
             + (" (selection data if a search used it)" if data["split"] == "search" else ""))
    doc.add(*tables(data))
    png = regime_plot(data, out_dir / "figures" / "regime.png")
    doc.add(Figure("figures/regime.png", "(NAS, KIS) regime plot; thresholds at 0 are the paper's convention"))
    md, page = doc.write(out_dir, "report")
    return {"markdown": md, "html": page, "png": png}


# --- `compare` on CF runs ------------------------------------------------------------------------
COMPARE_VALUES = ("cf", "cf_judged", "nas", "nas_judged", "kis", "kis_judged", "searched", "correct", "abstained")


def _diff_cell(diff: dict | None) -> str:
    if not diff or diff.get("diff") is None:
        return "n/a (n=0)"
    lo, hi = diff["ci"]
    return f"{diff['diff']:+.3f} [{lo:+.3f}, {hi:+.3f}] (n={diff['n']})"


def compare_tables(block: dict, n_resamples: int) -> list[Table]:
    """Per harness: NAS / KIS (judge-free and judged, question-bootstrap CIs), search rate and
    regime; then the paired differences of the per-item values against the first harness."""
    labels = [lb for lb, b in block.get("benchmarks", {}).items() if "cf" in b]
    cards = {lb: block["benchmarks"][lb]["cf"] for lb in labels}
    rows = []
    for variant, name in VARIANTS.items():
        rows.append([f"NAS {name}", *(score_cell(cards[lb]["nas"][variant]) for lb in labels)])
        rows.append([f"KIS {name}", *(score_cell(cards[lb]["kis"][variant]) for lb in labels)])
        rows.append([f"regime {name}", *(str(cards[lb]["regime"][variant]) for lb in labels)])
    rows.append(["search rate OK", *(rate_cell(cards[lb].get("search_rate", {}).get("OK")) for lb in labels)])
    rows.append(["search rate IK", *(rate_cell(cards[lb].get("search_rate", {}).get("IK")) for lb in labels)])
    rows.append(["accuracy OK", *(rate_cell(cards[lb]["accuracy"]["OK"]) for lb in labels)])
    rows.append(["excluded", *(counts_text(cards[lb]["excluded"]) for lb in labels)])
    condition = next(iter(cards.values()))["condition"] if cards else ""
    out = [Table(f"{block['split']} split: Confident Fools ({CONDITION_NAMES.get(condition, condition)})",
                 ["metric", *labels], rows,
                 [f"mean label over valid items, 95% percentile CI from {cards[labels[0]]['n_resamples']} "
                  "question-bootstrap resamples" if labels else ""])]
    diffs = [d for d in block.get("differences", []) if d.get("values")]
    if diffs:
        keys = [k for k in COMPARE_VALUES if any(k in d["values"] for d in diffs)]
        out.append(Table(paired_title(f"{block['split']} split: Confident Fools per-item values, paired differences",
                                      diffs),
                         ["value", *(contrast(d) for d in diffs)],
                         [[k, *(_diff_cell(d["values"].get(k)) for d in diffs)] for k in keys],
                         [f"matched rollouts (item, seed); 95% percentile CI, {n_resamples} bootstrap resamples "
                          "over items; cf = NAS label on OK items, KIS label on IK items (the objective)"]))
    return out
