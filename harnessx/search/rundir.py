"""The run directory `runs/<name>/` and its files (read by compare, report, eval and export).

config.json      the search's configuration (resume must match it)
checkpoint.json  state after the last finished round (written atomically)
harnesses/       every candidate, `<hash>.yaml`
ledger.jsonl     one row per proposal, rejected ones included (R0 is round 0)
rollouts/        the rollout cache
optuna.log       the Optuna journal (unless --storage names another store)
mlflow.json      a launch tag, then the MLflow parent run's id once created (resume reopens that run)
scores/          per candidate, `<hash>.jsonl`: one scored trial per line, with its rollout key
r0.yaml, selected.yaml, summary.json
"""

from __future__ import annotations

import json
import math
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

from harnessx import failpoints
from harnessx.errors import InputError
from harnessx.harness import Harness
from harnessx.io_read import read_json, read_jsonl
from harnessx.io_write import check_out_dir, write_atomic

__all__ = ["RunDir", "ledger_row", "read_json_file", "write_atomic"]

# Config fields that may change on --resume: budgets, concurrency, stores, and raising --rounds.
MUTABLE = ("rounds", "max_rollouts", "max_cost", "concurrency", "storage", "tracking_uri", "created")
# Fields a run made before they were recorded lacks: its first resume cannot check them (it takes today's
# and records them, so every later resume is checked against them).
RECORDED_LATER = ("accept_options",)
RUN_ID = "run_id"  # this run's identity, made once when its directory is created; kept by every resume


def _difference(key: str, was: Any, now: Any) -> str:
    """One changed config field; of a dict (a rule's settings), only the entries that differ."""
    if isinstance(was, dict) and isinstance(now, dict):
        names = sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
        return (f"{key}: run has {', '.join(f'{k}={was.get(k)!r}' for k in names)}; now "
                f"{', '.join(f'{k}={now.get(k)!r}' for k in names)}")
    return f"{key}: run has {was!r}, now {now!r}"


def read_json_file(path: Path, recover: str) -> Any:
    """A JSON file of the run dir; a truncated, empty or corrupt one is one error naming it and the fix."""
    return read_json(path, recover)


CHECKPOINT_RECOVERY = ("a checkpoint written by harnessx search; delete checkpoint.json and --resume to redo the "
                       "search from R0 with every finished rollout read from the cache")


LEDGER_RECOVERY = ("one JSON object per line; remove that line and the rows after it, then --resume re-runs their "
                   "round from the rollout cache")


def ledger_row(row: Any) -> None:
    """A ledger row is a JSON object with its round, and an objective value that is a finite number or
    null (a NaN or infinity is no score: a plot or a table would drop it or rank it silently)."""
    if not isinstance(row, dict) or "round" not in row:
        raise ValueError("not a ledger row (no 'round')")
    objective = row.get("objective")
    value = objective.get("value") if isinstance(objective, dict) else objective
    if value is not None and not (isinstance(value, int | float) and math.isfinite(value)):
        raise ValueError(f"field 'objective.value' = {value!r} is not a finite number or null")


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.torn_tail: int | None = None  # line number of a torn ledger tail that was dropped
        self.created = False  # this process made the directory (a fresh run, not a resume)
        self.run_id: str | None = None  # set by prepare()

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    @property
    def rollouts(self) -> Path:
        return self.path / "rollouts"

    def prepare(self, config: dict[str, Any], resume: bool) -> dict[str, Any] | None:
        """Create a fresh run dir, or check a resumed one; returns its checkpoint (None if fresh)."""
        config_file = self / "config.json"
        if not resume:
            if self.path.exists():
                raise InputError(str(self.path), "run directory already exists",
                                 "--resume to continue it, or --name for a new search")
            check_out_dir(self.path.parent, "a runs folder (--runs-dir)")
            (self.path / "harnesses").mkdir(parents=True)
            self.created = True
            self.run_id = uuid.uuid4().hex[:12]
            write_atomic(config_file, json.dumps({**config, RUN_ID: self.run_id}, indent=2))
            return None
        if not config_file.is_file():
            raise InputError(str(self.path), "nothing to resume (no config.json)", "an existing search run directory")
        old = read_json_file(config_file, "the run's config.json; restore it or start a new search with --name")
        self.run_id = old.get(RUN_ID)  # None for a run made before runs had an identity
        changed = sorted(k for k in (old.keys() | config.keys()) if k not in (*MUTABLE, RUN_ID)
                         and old.get(k) != config.get(k) and (k in old or k not in RECORDED_LATER))
        if changed:
            detail = "; ".join(_difference(k, old.get(k), config.get(k)) for k in changed)
            raise InputError(str(self.path), f"--resume with a different configuration ({detail})",
                             "the original options, or --name for a new search")
        recorded_now = {k: config[k] for k in RECORDED_LATER if k not in old and k in config}  # from now on, checked
        write_atomic(config_file, json.dumps({**old, **{k: config[k] for k in MUTABLE if k in config and k != "created"},
                                              **recorded_now}, indent=2))
        checkpoint = self / "checkpoint.json"
        if not checkpoint.is_file():
            return None
        state = read_json_file(checkpoint, CHECKPOINT_RECOVERY)
        if not isinstance(state, dict) or "round" not in state:
            raise InputError(str(checkpoint), "not a search checkpoint (no 'round')", CHECKPOINT_RECOVERY)
        return state

    def study_name(self, run_name: str, storage: str | None) -> str:
        """The run's Optuna study. Its own journal file needs no more than the run's name; a shared
        --storage database may hold another search of the same name, so there the run's id is part of it."""
        return f"{run_name}@{self.run_id}" if storage and self.run_id else run_name

    def discard_if_unused(self) -> bool:
        """Remove the directory this process created if no rollout was recorded in it; True if removed."""
        if not self.created or not self.path.is_dir() or any(p.is_file() for p in self.rollouts.rglob("*")):
            return False
        shutil.rmtree(self.path, ignore_errors=True)
        self.created = False
        return True

    def save_harness(self, harness: Harness) -> Path:
        path = self / "harnesses" / f"{harness.hash}.yaml"
        if not path.is_file():
            harness.save(path)
        return path

    def save_scores(self, harness_hash: str, evaluation: Any) -> Path:
        """Per-trial scores of a candidate's evaluation (what the viewer's candidate table reads)."""
        rows = [{"key": r.key, "status": r.status, "stop_reason": r.stop_reason, "steps": r.steps,
                 **s.model_dump(mode="json")} for r, s in zip(evaluation.results, evaluation.scores)]
        path = self / "scores" / f"{harness_hash}.jsonl"
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, "".join(json.dumps(row, default=str) + "\n" for row in rows))
        return path

    def ledger(self) -> list[dict[str, Any]]:
        """The ledger's rows. A torn last line (a kill during an append: no newline) is dropped, as its
        round was never checkpointed; a corrupt line elsewhere is an error naming its line number."""
        path = self / "ledger.jsonl"
        if not path.is_file():
            return []
        read = read_jsonl(path, LEDGER_RECOVERY, row_check=ledger_row, kind="ledger line")
        self.torn_tail = read.torn_tail  # repaired: trim_ledger rewrites the file without it
        return read.rows

    def append_ledger(self, rows: list[dict[str, Any]]) -> None:
        """Append rows, each one write, then flush and fsync: a kill leaves at most a torn last line."""
        with open(self / "ledger.jsonl", "a", encoding="utf-8") as fh:
            text = "".join(json.dumps(row, default=str) + "\n" for row in rows)
            failpoints.hit("ledger.append", torn=lambda: (fh.write(text[: len(text) // 2]), fh.flush()))
            for row in rows:
                fh.write(json.dumps(row, default=str) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def trim_ledger(self, last_round: int) -> list[dict[str, Any]]:
        """Drop rows of rounds after the checkpoint (a round killed after logging, before checkpointing)."""
        rows = [r for r in self.ledger() if r["round"] <= last_round]
        write_atomic(self / "ledger.jsonl", "".join(json.dumps(r, default=str) + "\n" for r in rows))
        return rows

    def write_json(self, name: str, data: Any) -> None:
        write_atomic(self / name, json.dumps(data, indent=2, default=str))

    def read_json(self, name: str) -> Any:
        return read_json_file(self / name, f"a JSON file written by harnessx; restore {name} or re-run the search")
