"""KAPRO tables in the paper's shapes: Table 3 (Pass / Acc_know / Acc_act / KAS per subspace and
valid-weighted Avg), Table 4 (quadrants and DirGap), Table 8 (over/underuse), per hop, and the
distractor deltas. Every cell carries its 95% bootstrap CI and valid n (trials)."""

from __future__ import annotations

from harnessx.kapro.metrics import QUADRANT_LABELS, QUADRANTS, SUBSPACES
from harnessx.formatting.cells import counts_text
from harnessx.formatting.table import Table

BOOT = "95% percentile bootstrap CI over tasks (a task's seeds together); n = valid trials (task × seed: knowing parsed, acting ran)"


def pct(metric: dict | None, signed: bool = False) -> str:
    if not metric or metric.get("value") is None:
        return f"n/a (n={(metric or {}).get('n', 0)})"
    fmt = "{:+.2f}" if signed else "{:.2f}"
    text = fmt.format(100 * metric["value"])
    if metric.get("ci"):
        lo, hi = metric["ci"]
        text += f" [{fmt.format(100 * lo)}, {fmt.format(100 * hi)}]"
    return text + f" (n={metric['n']})"


def num(metric: dict) -> str:
    if metric.get("value") is None:
        return f"n/a (n={metric.get('n', 0)})"
    lo, hi = metric["ci"]
    return f"{metric['value']:.2f} [{lo:.2f}, {hi:.2f}] (n={metric['n']})"


def counts_line(data: dict) -> str:
    """What `kapro eval` read, used and skipped (items, tasks of the split, rollouts)."""
    unread, items, tasks = len(data.get("unread", [])), data["n_items"], data["n_tasks"]
    return (f"read {items} items from {data['source']}" + (f" ({unread} records not read)" if unread else "")
            + f"; evaluated {tasks} {data['split']} tasks x {data['epochs']} epoch(s) = {tasks * data['epochs']} "
            f"rollouts; skipped {items - tasks} items of the other split")


def _subs(m: dict) -> list[str]:
    return [s for s in SUBSPACES if s in m["per_subspace"]]


def table3(m: dict, title: str) -> Table:
    rows = [[s, pct(b["pass"]), pct(b["acc_know"]), pct(b["acc_act"]), pct(b["kas"]), pct(b["kas_task"]),
             _excl(b)] for s, b in ((s, m["per_subspace"][s]) for s in _subs(m))]
    avg = m["avg"]
    # the Avg row excludes nothing of its own (its subspaces' exclusions are in their rows): its weights
    # are a note, not an exclusion
    rows.append(["Avg (valid-weighted)", pct(avg["pass"]), pct(avg["acc_know"]), pct(avg["acc_act"]), pct(avg["kas"]),
                 "", "(per subspace)"])
    a = m["all"]
    rows.append(["all tasks pooled", pct(a["pass"]), pct(a["acc_know"]), pct(a["acc_act"]), pct(a["kas"]),
                 pct(a["kas_task"]), _excl(a)])
    return Table(f"{title}: Table 3 shape (%)", ["subspace", "Pass", "Acc_know", "Acc_act", "KAS",
                                                 "mean per-task KAS value (≤ KAS)", "excluded"], rows,
                 [BOOT, ("KAS = harmonic mean of the aggregate Acc_know and Acc_act; Avg weights subspaces by "
                         "valid n; the search objective `kas` is Avg KAS itself"),
                  f"Avg weights (valid trials per subspace): {counts_text(avg['kas']['weights'])}",
                  "excluded = trials with no knowing answer parsed or no acting run, by reason"])


def _excl(block: dict) -> str:
    return counts_text(block["excluded"])


def table4(m: dict, title: str) -> Table:
    rows = [[s, *(pct(m["per_subspace"][s][q]) for q in QUADRANTS), pct(m["per_subspace"][s]["dirgap"], True)]
            for s in _subs(m)]
    rows.append(["Avg (valid-weighted)", "", "", "", "", pct(m["avg"]["dirgap"], True)])
    return Table(f"{title}: Table 4 shape, know–act quadrants (%)",
                 ["subspace", *(QUADRANT_LABELS[q] for q in QUADRANTS), "DirGap"], rows,
                 [BOOT, "Kc/Ac etc. by exact set match (J = 1); DirGap = p(Kc/Aw) − p(Kw/Ac), > 0: knowing outpaces acting"])


def table8(m: dict, title: str) -> Table:
    keys = ("under_know", "over_know", "under_act", "over_act", "c_ka", "tool_calls")
    rows = [[s, *(num(m["per_subspace"][s][k]) for k in keys)] for s in _subs(m)]
    return Table(f"{title}: tool under/overuse (fractions), C̄_KA and tool calls per task",
                 ["subspace", "Know Under", "Know Over", "Act Under", "Act Over", "C̄_KA", "tool calls / task"], rows,
                 [BOOT, "1 − Acc = Over + Under per stage (Eq. 9); C̄_KA = mean J(E_know, E_act) (Eq. 10)"])


def hop_table(m: dict, title: str) -> Table:
    rows = [[h, pct(b["acc_know"]), pct(b["acc_act"]), pct(b["kas"]), pct(b["pass"])] for h, b in m["per_hop"].items()]
    return Table(f"{title}: per hop (%)", ["hop", "Acc_know", "Acc_act", "KAS", "Pass"], rows, [BOOT])


def delta_table(deltas: dict, n: int) -> Table:
    rows = [[s, *(("n/a" if d[q] is None else f"{d[q]:+.2f}") for q in QUADRANTS), f"{d['n_base']} / {d['n_noise']}"]
            for s, d in deltas.items()]
    return Table(f"Distractor experiment: quadrant Δ = P_noise − P_base (pp), {n} distractor tools",
                 ["subspace", *(QUADRANT_LABELS[q] for q in QUADRANTS), "valid n base / noise"], rows,
                 ["distractors: same server first, then other servers, at most 10 (digest §2.3)"])


def kapro_tables(data: dict) -> list[Table]:
    m, title = data["metrics"], f"{data['harness']['name']} on {data['split']}"
    tables = [table3(m, title), table4(m, title), table8(m, title), hop_table(m, title)]
    if data.get("distractor_deltas"):
        tables.append(delta_table(data["distractor_deltas"], data["distractor_run"]["distractors"]))
    return tables


COMPARE_VALUES = {"kas_avg": "Avg KAS (search objective `kas`)", "j_know": "Acc_know", "j_act": "Acc_act",
                  "kas_task": "mean per-task KAS value (≤ KAS)",
                  "pass": "Pass", "over_act": "Act Over", "under_act": "Act Under", "c_ka": "C̄_KA",
                  "tool_calls": "tool calls / task"}


def _value_cell(v: dict | None) -> str:
    if not v or not v.get("n"):
        return "n/a (n=0)"
    lo, hi = v["ci"]
    return f"{v['value']:.3f} [{lo:.3f}, {hi:.3f}] (n={v['n']}" + (f", {v['excluded']} excl.)" if v.get("excluded") else ")")


def compare_values_table(block: dict) -> Table:
    """KAPRO values per harness in a comparison: real KAS (from the aggregates) first, then the
    per-task values; the paired difference of each harness vs the first contender."""
    from harnessx.kapro.sets import kas

    labels = list(block["values"])
    rows = []
    kapro = {lb: (block.get("benchmarks", {}).get(lb) or {}).get("kapro") for lb in labels}
    if all(kapro.values()):
        rows.append(["KAS % (harmonic mean of Acc_know, Acc_act)", *(pct(kapro[lb]["all"]["kas"]) for lb in labels)])
        rows.append(["KAS % Avg (valid-weighted over subspaces)", *(pct(kapro[lb]["avg"]["kas"]) for lb in labels)])
        rows.append(["DirGap (pp)", *(pct(kapro[lb]["all"]["dirgap"], True) for lb in labels)])
    else:
        cells = []
        for lb in labels:
            v = block["values"][lb]
            jk, ja = (v.get("j_know") or {}).get("value"), (v.get("j_act") or {}).get("value")
            cells.append("n/a" if jk is None or ja is None else f"{kas(jk, ja):.3f} (n={v['j_act']['n']})")
        rows.append(["KAS (harmonic mean of Acc_know, Acc_act)", *cells])
    for key, name in COMPARE_VALUES.items():
        if any(key in block["values"][lb] for lb in labels):
            rows.append([name, *(_value_cell(block["values"][lb].get(key)) for lb in labels)])
    diffs = {d["first"]: d.get("values", {}) for d in block.get("differences", [])}
    for lb, d in diffs.items():
        key = "kas_avg" if "kas_avg" in d else "kas_task" if "kas_task" in d else None
        if key:
            x = d[key]
            name = "Avg KAS (objective `kas`)" if key == "kas_avg" else "per-task KAS value"
            rows.append([f"Δ {name}, {lb} − {labels[0]}", *(
                f"{x['diff']:+.3f} [{x['ci'][0]:+.3f}, {x['ci'][1]:+.3f}] (n={x['n']})" if lb2 == lb else ""
                for lb2 in labels)])
    return Table(f"{block['split']} split: KAPRO values", ["metric", *labels], rows,
                 [("KAS, Avg and DirGap: %, 95% bootstrap CI over tasks; other rows: means over valid trials, 95% "
                   "normal CI (Avg KAS: delta method); paired Δ: bootstrap over tasks; KAS is computed from the "
                   "aggregates")])
