"""The per-trial rows of a compare (or eval): each contender's scored trials on each split, with the
rollout keys that open their trajectories, so what an edit flipped on the held-out split can be read
back as on the search split.

`<stem>.trials.jsonl` sits next to `<stem>.json`: a header line (the contenders with label, role and
hash, where the rollouts live relative to the folder, the searched objective), then one scored trial
per line (the search's `scores/<hash>.jsonl` row plus the contender's label and hash). The compared
harnesses are saved under `harnesses/<hash>.yaml` for the harness text diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from harnessx.comparison.run_trials import Candidate, SearchRun, cached_trajectory, scored_trial
from harnessx.comparison.runs import Contender
from harnessx.errors import InputError, one_of
from harnessx.harness.model import Harness
from harnessx.io_read import read_jsonl
from harnessx.io_write import write_atomic
from harnessx.scoring.task_score import TaskScore
from harnessx.trajectory import Trajectory

SUFFIX = ".trials.jsonl"
NAMES = "R0, selected, a contender's label or a harness hash (4 or more hex digits)"


def trial_rows(contender: Contender, evaluation: Any) -> list[dict]:
    """One row per scored rollout of `evaluation` (the contender's, on one split)."""
    return [{"label": contender.label, "hash": contender.harness.hash, "key": r.key, "status": r.status,
             "stop_reason": r.stop_reason, "steps": r.steps, **s.model_dump(mode="json")}
            for r, s in zip(evaluation.results, evaluation.scores)]


def write_trials(out: Path, stem: str, contenders: list[Contender], rows: list[dict], rollouts: Path) -> Path:
    """Write `<out>/<stem>.trials.jsonl` and the contenders' harnesses; `rollouts` is the cache folder."""
    for c in contenders:
        if not (out / "harnesses" / f"{c.harness.hash}.yaml").is_file():
            c.harness.save(out / "harnesses" / f"{c.harness.hash}.yaml")
    objectives = {str(c.run.config.get("objective")) for c in contenders if c.run and c.run.config.get("objective")}
    header = {"contenders": [{"label": c.label, "role": c.role, "hash": c.harness.hash} for c in contenders],
              "rollouts": Path(os.path.relpath(rollouts, out)).as_posix(),
              "objective": objectives.pop() if len(objectives) == 1 else None}
    text = "".join(json.dumps(line, default=str) + "\n" for line in [header, *rows])
    return write_atomic(out / f"{stem}{SUFFIX}", text)


def trial_files(folder: Path) -> list[Path]:
    """The folder's trials files, newest last."""
    return sorted(folder.glob(f"*{SUFFIX}"), key=lambda p: (p.stat().st_mtime_ns, p.name))


def _object(row: Any) -> None:
    if not isinstance(row, dict):
        raise ValueError("a line that is not a JSON object")


def _read(file: Path) -> tuple[dict, list[dict]]:
    expected = "a header line, then one trial per line (the trials file a compare or eval wrote)"
    lines = read_jsonl(file, expected, row_check=_object)
    if lines.torn_tail or not lines.rows:  # written whole (atomically): a cut line is damage, not an append
        raise InputError(str(file), "is empty or cut short", expected)
    return lines.rows[0], lines.rows[1:]


class CompareRun:
    """A compare/eval output folder read like a search run: candidates, their trials on one split,
    and trajectories. `split` defaults to heldout when it was run, else the first split; each split
    is read from the newest compare that ran it."""

    def __init__(self, path: str | Path, split: str | None = None):
        self.path = Path(path)
        files = trial_files(self.path)
        if not files:
            raise InputError(str(self.path), f"holds no per-trial rows (*{SUFFIX})",
                             "a search run, or the folder a compare or eval wrote")
        found = {}  # split -> the newest file that ran it
        for file in files:
            header, rows = _read(file)
            for name in dict.fromkeys(str(r.get("split")) for r in rows):
                found[name] = (file, header, rows)
        if split is not None and split not in found:
            raise InputError("--split", f"{split!r} was not run by the compares in {self.path}",
                             one_of(found))
        split = split or ("heldout" if "heldout" in found else next(iter(found), None))
        self.file, self.header, self.rows = found[split] if split else (files[-1], *_read(files[-1]))
        self.split = split or "heldout"
        self.config = {"objective": self.header.get("objective")}
        self.rollouts = self.path / self.header.get("rollouts", "rollouts")

    @property
    def note(self) -> str:
        return ("on the search split (selection data)" if self.split == "search"
                else f"on the {self.split} split (no candidate was selected on it)")

    def resolve(self, name: str) -> Candidate:
        contenders = self.header.get("contenders") or []
        role = {"r0": "r0", "selected": "selected"}.get(name.lower())
        found = ([c for c in contenders if c.get("role") == role] if role else
                 [c for c in contenders if c.get("label") == name]
                 or ([c for c in contenders if str(c.get("hash", "")).startswith(name.lower())] if len(name) >= 4 else []))
        if len(found) != 1:
            what = "matches no contender" if not found else f"matches {len(found)} contenders"
            raise InputError(name, f"{what} of {self.file}", NAMES)
        c = found[0]
        label = "R0" if role == "r0" else "selected" if role == "selected" else c["label"]
        return Candidate(label, c["hash"], Harness.load(self.path / "harnesses" / f"{c['hash']}.yaml"))

    def trials(self, candidate: Candidate) -> list[tuple[TaskScore, str]]:
        return [scored_trial(row, f"{self.file}:{number}") for number, row in enumerate(self.rows, 2)
                if row.get("hash") == candidate.hash and row.get("split") == self.split]

    def trajectory(self, key: str) -> Trajectory:
        return cached_trajectory(self.rollouts, key)


def open_trials(path: str | Path, split: str | None = None) -> SearchRun | CompareRun:
    """A search run (its own search split), or a compare/eval folder (`split`, default heldout). A
    search run asked for another split reads the compare it holds (`<run>/compare`)."""
    path = Path(path)
    if (path / "ledger.jsonl").is_file():
        if split in (None, "search"):
            return SearchRun(path)
        if trial_files(path / "compare"):
            return CompareRun(path / "compare", split)
        raise InputError(str(path), f"has no compare with per-trial rows for split {split!r}",
                         f"run `harnessx compare {path} --split {split}` first")
    return CompareRun(path, split)
