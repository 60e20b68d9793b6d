"""Tables built from the comparison and probe JSON, printable with rich and writable as Markdown.

Every rate cell shows k/n, the percentage and its 95% interval; every metric cell its support n (the
cells and the table are in `harnessx.formatting`, re-exported here). A benchmark adds its own tables
to a comparison through the benchmark registry; this module names none.
"""

from __future__ import annotations

from harnessx.benchmarks.registry import compare_tables as benchmark_compare_tables
from harnessx.comparison.metrics import FAMILY_METRICS, METRICS, ROWS
from harnessx.formatting.cells import (contrast, counts_text, diff_cell, mean_sd_cell, metric_cell, paired_title,  # noqa: F401
                                       rate_cell, unpaired_diff_cell)
from harnessx.formatting.table import Table, model_line  # noqa: F401
from harnessx.probes.transitions import LABELS as TRANSITION_LABELS


# --- cells -------------------------------------------------------------------------------------
MAX_EXCLUSION_NOTES = 12


def exclusion_notes(block: dict) -> list[str]:
    """One line per excluded rollout (harness, task, seed, why, detail), the rest counted."""
    lines = [f"excluded: {label} · {x['task_id']} seed {x['seed']}: {x['exclusion']}"
             + (f" — {x['detail']}" if x.get("detail") else "")
             for label, h in block["harnesses"].items() for x in h.get("exclusions", [])]
    lines += [f"invalid task (not run): {x['id']}: {x['error']}" for x in block.get("invalid_tasks", [])]
    if len(lines) > MAX_EXCLUSION_NOTES:
        lines = lines[:MAX_EXCLUSION_NOTES] + [f"... and {len(lines) - MAX_EXCLUSION_NOTES} more (see the JSON)"]
    return lines


# --- comparison --------------------------------------------------------------------------------
SEARCH_DIFF_NOTE = "search-split difference (selection data, not a claim): a search selected on these tasks"
ROWS_NOTE = ("· gates of strict SA over blocked rollouts; joint, clean: a solve with a false abstention is no "
             "success; pairs right both ways: (source, seed) pairs whose blocked twin has strict SA and whose "
             "feasible twin is solved without a false abstention; unpaired = sources without both twins in this "
             "run (no pair: not applicable, never excluded)")


def split_title(block: dict, seeds: list[int]) -> str:
    kind = ("selection data: descriptive, not held-out" if block["split"] == "search"
            else "held out: never used for selection")
    return (f"{block['split']} split ({kind}) — {block['n_blocked']} blocked + {block['n_feasible']} feasible "
            f"tasks, {block['n_sources']} sources, {len(seeds)} seed(s)")


def blanket_note(block: dict, simulated: bool) -> list[str]:
    """A real model's table names what deferring on every task would score on the same tasks."""
    base = block.get("blanket_defer")
    if simulated or not base:
        return []
    return [f"blanket-defer baseline ({base['how']}): strict SA {rate_cell(base['strict_sa'])}, solve "
            f"{rate_cell(base['solve'])}, joint {rate_cell(base['joint'])}, pairs right both ways "
            f"{rate_cell(base['pairs'])}"]


def compare_tables(data: dict) -> list[Table]:
    tables = []
    for block in data["splits"].values():
        labels = list(block["harnesses"])
        rows = [[label, *(rate_cell(block["harnesses"][lb]["metrics"].get(m)) for lb in labels)]
                for m, label in ROWS.items()]
        families = sorted({f for lb in labels for f in block["harnesses"][lb]["per_family"]})
        rows += [[f"{METRICS[m][0]} · {f}", *(rate_cell(block["harnesses"][lb]["per_family"].get(f, {}).get(m))
                                            for lb in labels)] for f in families for m in FAMILY_METRICS]
        tables.append(Table(split_title(block, data["seeds"]), ["metric", *labels], rows,
                            ["k/n, % and Wilson 95% CI; excl. = rollouts excluded (environment, model or judge "
                             "failures, tampered records, invalid tasks)", ROWS_NOTE,
                             *blanket_note(block, data["simulated"]), *exclusion_notes(block)]))
        tables += benchmark_compare_tables(block, data["n_resamples"])  # each benchmark's own
        if block["differences"]:
            diffs = block["differences"]
            tables.append(Table(paired_title(f"{block['split']} split: paired differences", diffs),
                                ["metric", *(contrast(d) for d in diffs)],
                                [[METRICS[m][0], *(diff_cell(d["metrics"][m]) for d in diffs)] for m in METRICS],
                                [f"matched rollouts; 95% percentile CI, {data['n_resamples']} bootstrap resamples "
                                 "of blocked–feasible source pairs"]
                                + ([SEARCH_DIFF_NOTE] if block["split"] == "search" else [])))
    if data.get("transfer"):
        rows = [[row["label"], row["split"], ROWS[m], rate_cell(cell["search"]), rate_cell(cell["heldout"]),
                 unpaired_diff_cell(cell["heldout"], cell["search"])]
                for row in data["transfer"] for m, cell in row["metrics"].items()]
        sources = sorted({f"{r['label']}: {r['search_source']}" for r in data["transfer"]})
        tables.append(Table("Transfer: search split (selection data) vs held-out split, same harness",
                            ["harness", "held-out split", "metric", "search split (selection data)", "held out",
                             "Δ held-out − search"], rows,
                            ["search-split source — " + "; ".join(sources),
                             "Δ: difference of two independent rates (different tasks), Newcombe 95% CI"]))
    return tables


# --- probes ------------------------------------------------------------------------------------
def belief_tables(data: dict) -> list[Table]:
    rows = [[label, f"{h['n_A']}/{h['n_C']}", metric_cell(h["auroc"]), metric_cell(h["brier"]), metric_cell(h["ece10"]),
             f"{h['n_invalid']}/{h['n_reports']}"] for label, h in data["harnesses"].items()]
    tables = [Table(f"Belief probe ({data['split']} split): P(feasible) from a read-only report",
                    ["harness", "n_A/n_C", "AUROC ↑", "Brier ↓", "ECE10 ↓", "invalid"], rows,
                    ["AUROC on each harness's valid reports (n_A); Brier/ECE10 on the reports valid for every "
                     f"compared harness (n_C); 95% CI from {data['n_resamples']} bootstrap resamples of source pairs"])]
    if data["differences"]:
        tables.append(Table(paired_title("Belief probe: paired differences", data["differences"], "matched n_C reports"),
                            ["contrast", "AUROC", "Brier", "ECE10"],
                            [[contrast(d), *(metric_cell(d[m], signed=True)
                                                                 for m in ("auroc", "brier", "ece10"))]
                             for d in data["differences"]]))
    return tables


def challenge_tables(data: dict) -> list[Table]:
    rows = []
    for label, h in data["harnesses"].items():
        s = h["summary"]
        excluded = counts_text(h["excluded"])
        pooled = h.get("pooled", {})
        rows.append([label, *(mean_sd_cell(s[t]) + (f"; pooled {rate_cell(pooled[t])}" if t in pooled else "")
                              for t in TRANSITION_LABELS),
                     f"{mean_sd_cell(s['contrast'], -100.0, 100.0)} ({h['contrast_name']})",
                     str(h["scorable_blocked"]), excluded, rate_cell(h["new_false_abstention"])])
    first = next(iter(data["harnesses"].values()))
    return [Table(f"Challenge probe ({data['split']} split, {len(first['seeds'])} replicates): "
                  f"pre = {first['pre_predicate']}, post = {first['post_predicate']}",
                  ["harness", *TRANSITION_LABELS.values(), "contrast (pp)", "scorable blocked", "excluded",
                   "new false abstention (feasible, pooled)"], rows,
                  ["P(x|y): x post-challenge, y pre-challenge status, % per replicate, mean ± sample SD over "
                   "replicates [Student-t 95% CI of the mean over replicates]; pooled: k/n over all replicates, "
                   "Wilson 95% CI; contrast = P(+|−) − P(−|+): CRA with the same predicate before and after, "
                   "Δχ otherwise"])]
