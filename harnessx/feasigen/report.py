"""`feasigen report`: the paper's tables (SR, FCR, token cost, FASS, multi-agent pairs) and the
(SR, FCR) Pareto plot from an eval's `results.json`, as Markdown, HTML and PNG.

Every rate cell is k/n, the percentage and its Wilson 95% interval; "Avg" is the unweighted mean
over datasets with a normal-approximation interval; token means carry n and a bootstrap
interval. The header names every model and says when it is simulated.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from harnessx.io_write import save_figure
from harnessx.formatting.cells import rate_cell  # noqa: E402
from harnessx.formatting.document import Document, Figure  # noqa: E402
from harnessx.formatting.table import Table  # noqa: E402


def avg_cell(avg: dict) -> str:
    if avg.get("value") is None:
        return "n/a"
    lo, hi = avg["ci"]
    n = f", n={avg['n']}" if avg.get("n") else ""  # trials behind the datasets' rates (newer results)
    return f"{100 * avg['value']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] ({avg['datasets']} ds{n})"


def token_cell(tc: dict) -> str:
    if tc.get("mean") is None:
        return "n/a (n=0)"
    ci = f" [{tc['ci'][0] / 1000:.2f}, {tc['ci'][1] / 1000:.2f}]" if tc.get("ci") else ""
    return f"{tc['mean'] / 1000:.2f}K{ci} (n={tc['n']})"


def ratio_cell(tokens: dict) -> str:
    if tokens.get("ratio") is None:
        return "n/a"
    ci = tokens.get("ratio_ci")
    return f"{tokens['ratio']:.2f}×" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")


def label(name: str, simulated: bool) -> str:
    return name + (" (simulated)" if simulated else "")


def datasets_of(data: dict) -> list[str]:
    return sorted({d for s in data["systems"].values() for d in s["datasets"]})


def excluded_note(systems: list[tuple[str, dict]]) -> str:
    """What every table of these systems left out, and why (invalid rollouts: never a pass or a fail),
    told apart from an `n/a` cell (no trial of that kind: nothing was excluded there)."""
    parts = [f"{n}: {sum(s.get('excluded', {}).values())}"
             + (f" ({', '.join(f'{why} {k}' for why, k in sorted(s['excluded'].items()))})" if s.get("excluded") else "")
             for n, s in systems]
    return ("excluded rollouts (invalid, left out of every rate), and why: " + "; ".join(parts)
            + ". n/a: no trial of that kind, not an exclusion")


def tables(data: dict) -> list[Table]:
    ds = datasets_of(data)
    systems = [(n, s) for n, s in data["systems"].items() if s.get("evaluated", True)]
    excluded = excluded_note(systems)

    def metric_table(title: str, key: str, notes: list[str]) -> Table:
        rows = [[label(n, s["simulated"]), *(rate_cell(s["datasets"].get(d, {}).get(key)) for d in ds),
                 avg_cell(s["avg"][key]) if key in s["avg"] else ""] for n, s in systems]
        return Table(title, ["system", *ds, "Avg"], rows, [*notes, excluded])

    out = [metric_table("SR on Task_original (a STOP on an original is a failure)", "sr", []),
           metric_table("FCR on Task_infeasible (lower is better)", "fcr", ["FCR = continues / infeasible trials"])]
    rows = [[label(n, s["simulated"]), d, count_of(s["datasets"][d]["false_continue_count"], s["datasets"][d]["fcr"]),
             rate_cell(s["datasets"][d]["completed_infeasible"]), rate_cell(s["datasets"][d]["false_stop"])]
            for n, s in systems for d in ds if d in s["datasets"]]
    out.append(Table("False continues vs completed while infeasible (the paper's Table 6 counts the former)",
                     ["system", "dataset", "false continues", "completed while infeasible", "STOP on originals"],
                     rows, [excluded]))
    rows = [[label(n, s["simulated"]), d, token_cell(s["datasets"][d]["tokens"]["early_stop"]),
             token_cell(s["datasets"][d]["tokens"]["task_failure"]), ratio_cell(s["datasets"][d]["tokens"])]
            for n, s in systems for d in ds if d in s["datasets"]]
    out.append(Table("Token cost on Task_infeasible (input + output up to and including the termination decision)",
                     ["system", "dataset", "TC_early-stop", "TC_task-failure", "Ratio"], rows, [excluded]))
    out.append(metric_table("FASS (originals + infeasibles pooled per dataset)", "fass", []))
    if data["multi_agent"]:
        rows = []
        for name, m in data["multi_agent"].items():
            for d, block in m["datasets"].items():
                rows.append([label(name, m["simulated"]), d, rate_cell(block["fcr"]),
                             count_of(block["stopped_at_planning"], block["fcr"]),
                             token_cell(block["tokens"]["early_stop"]), rate_cell(block["executor_sr"]),
                             rate_cell(block["fass"])])
        out.append(Table("Planner → executor on Task_infeasible (2 planner rounds, ≤ 8 executor turns)",
                         ["planner → executor", "dataset", "FCR", "stopped at planning", "TC_early-stop",
                          "executor's single-agent SR", "multi-agent FASS"], rows,
                         ["multi-agent FASS pools the pair's STOPs on Task_infeasible with the executor's "
                          "single-agent successes on Task_original", excluded_note(list(data["multi_agent"].items()))]))
    pareto = data["pareto"]
    rows = [[n, avg_cell(data["systems"][n]["avg"]["sr"]), avg_cell(data["systems"][n]["avg"]["fcr"]),
             "yes" if n in pareto["non_dominated"] else "no", "yes" if n in pareto["convex"] else "no"]
            for n in pareto["points"]]  # every point is a system's (avg SR, avg FCR): its cells carry the CI
    out.append(Table("(SR, FCR) Pareto frontier (dataset averages)", ["system", "SR", "FCR", "non-dominated",
                                                                        "on convex frontier"], rows, [excluded]))
    return out


def count_of(k: int, rate: dict) -> str:
    """A count with its denominator: `k/n`, n the valid infeasible trials of `rate` (the FCR's)."""
    return f"{k}/{rate.get('n', 0)}"


def pareto_plot(data: dict, path: Path, note: str) -> Path:
    points, pareto = data["pareto"]["points"], data["pareto"]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name, (sr, fc) in points.items():
        on = name in pareto["convex"]
        ax.scatter([100 * sr], [100 * fc], color="tab:red" if on else "tab:blue", s=30)
        ax.annotate(name, (100 * sr, 100 * fc), fontsize=7, xytext=(3, 3), textcoords="offset points")
    front = [points[n] for n in pareto["convex"]]
    if len(front) > 1:
        ax.plot([100 * p[0] for p in front], [100 * p[1] for p in front], color="tab:red", lw=1, label="frontier")
        ax.legend(fontsize=8)
    ax.set_xlabel("SR on Task_original (%) ↑")
    ax.set_ylabel("FCR on Task_infeasible (%) ↓")
    ax.set_title(f"SR vs FCR (n_orig={data['n_original']}, n_inf={data['n_infeasible']} per system)")
    fig.text(0.01, 0.005, textwrap.fill(note, 110), fontsize=6, color="dimgray", va="bottom")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    try:
        return save_figure(fig, path)
    finally:
        plt.close(fig)


def model_note(data: dict) -> str:
    names = [label(n, s["simulated"]) for n, s in data["systems"].items()]
    names += [label(n, m["simulated"]) for n, m in data["multi_agent"].items()]
    text = "models: " + ", ".join(names)
    return text + (" — SIMULATED agents: pipeline/demo output, not a model's result" if data["simulated"] else "")


def write_report(data: dict, out_dir: Path, source: str = "") -> dict[str, Path]:
    note = model_note(data)
    doc = Document("HarnessX FeasiGen report")
    doc.para(note, banner=data["simulated"])
    doc.para(f"suite: {source or 'n/a'}; splits {', '.join(data['splits'])}; {data['epochs']} epoch(s); "
             "turn caps " + (", ".join(f"{k} {v}" for k, v in (data.get("turn_caps") or {}).items()) or "none") + ";"
             f" {data['n_original']} originals + {data['n_infeasible']} "
             "infeasible tasks.")
    for table in tables(data):
        doc.add(table)
    png = pareto_plot(data, out_dir / "figures" / "pareto.png", note)
    doc.add(Figure("figures/pareto.png", "(SR, FCR) per system; red: the convex Pareto frontier"))
    md, page = doc.write(out_dir, "feasigen-report")
    return {"markdown": md, "html": page, "png": png}


def compare_values_table(block: dict) -> Table:
    """FeasiGen's metrics per harness in a `compare` split (from each harness's benchmark block):
    SR, FCR, completed while infeasible and FASS per dataset (k/n, Wilson CI), and the paired
    difference of per-trial FASS against the first contender."""
    labels = list(block["harnesses"])
    fg = {lb: (block.get("benchmarks", {}).get(lb) or {}).get("feasigen") or {"datasets": {}} for lb in labels}
    datasets = sorted({d for lb in labels for d in fg[lb]["datasets"]})
    names = {"sr": "SR (originals)", "fcr": "FCR (infeasibles) ↓", "completed_infeasible": "completed while infeasible",
             "fass": "FASS (pooled)"}
    rows = [[f"{name} · {d}", *(rate_cell(fg[lb]["datasets"].get(d, {}).get(key)) for lb in labels)]
            for d in datasets for key, name in names.items()]
    for diff in block.get("differences", []):
        x = (diff.get("values") or {}).get("fass")
        if x:
            rows.append([f"Δ FASS per trial, {diff['first']} − {diff['second']}", *(
                f"{100 * x['diff']:+.1f} pp [{100 * x['ci'][0]:+.1f}, {100 * x['ci'][1]:+.1f}] (n={x['n']})"
                if lb == diff["first"] else "" for lb in labels)])
    return Table(f"{block['split']} split: FeasiGen metrics", ["metric", *labels], rows,
                 ["k/n, % and Wilson 95% CI over valid trials; Δ: paired bootstrap over source pairs"])
