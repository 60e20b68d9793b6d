"""A search's compare in its Optuna study: Optuna cannot change a finished trial, so what `harnessx
compare` measured on a split selection never saw is a study user attr, `compare_<split>`, next to the
claim the search wrote there: the flips of the selected harness against R0 (gained, lost, out of how
many trials) and the paired difference of the search's objective with its 95% CI and n."""

from __future__ import annotations

import json
from pathlib import Path


def note_compare(out_dir: Path, labels: list[str], data: dict) -> str | None:
    """Set `compare_<split>` on the study of the search whose run folder holds `out_dir`, when the compare
    is of that search's R0 and selected harness; returns the attr's name, else None (not a search's
    compare folder, other contenders, or no study)."""
    from harnessx.report.mlflow_log import compare_flips
    from harnessx.search.rundir import RunDir
    from harnessx.search.tracking import open_study

    run = out_dir.parent
    config_file, journal = run / "config.json", run / "optuna.log"
    if not config_file.is_file() or labels[:1] + labels[-1:] != [f"{run.name}:R0", f"{run.name}:selected"]:
        return None  # only the search's own pair: its R0 and its selected harness
    config = json.loads(config_file.read_text(encoding="utf-8"))
    storage = config.get("storage")
    if not storage and not journal.is_file():
        return None
    folder = RunDir(run)
    folder.run_id = config.get("run_id")
    study = open_study(storage, journal, folder.study_name(run.name, storage), config.get("objective") or "joint")
    moved, split = compare_flips(out_dir, labels)
    objective = moved.objective
    block = (data.get("splits") or {}).get(split) or {}
    pair = next((p for p in block.get("differences") or [] if p.get("first") == labels[-1]), {})
    measured = (pair.get("metrics") or {}).get(objective) or {}
    note = {"first": labels[0], "second": labels[-1], "objective": objective, "flips_gained": len(moved.gained),
            "flips_lost": len(moved.lost), "flips_compared": moved.compared, "flips_excluded": moved.excluded,
            "flips_unmatched": moved.unmatched, "difference": measured.get("diff"), "ci_95": measured.get("ci"),
            "n": measured.get("n")}
    ci = measured.get("ci") or [None, None]
    if note["difference"] is not None and None not in ci:
        note["line"] = (f"{split} split: {labels[-1]} − {labels[0]} {objective} {100 * note['difference']:+.1f} pp "
                        f"[95% CI {100 * ci[0]:+.1f}, {100 * ci[1]:+.1f} pp] (n={note['n']}); flips "
                        f"{note['flips_gained']} gained, {note['flips_lost']} lost of {moved.compared} trials compared")
    study.set_user_attr(f"compare_{split}", note)
    return f"compare_{split}"
