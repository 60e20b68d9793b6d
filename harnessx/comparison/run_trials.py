"""A search run's candidates as `harnessx diff` names them, with their scored trials and trajectories.

A candidate is named `R0`, `selected`, a harness hash or an unambiguous prefix of one (at least 4
hex digits). `parent:<name>` is the candidate the named one was proposed from (its ledger row's
parent). Trials come from `scores/<hash>.jsonl` (one scored rollout per line, with its rollout key)
and trajectories from the run's rollout cache.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from harnessx.errors import InputError
from harnessx.harness.model import Harness, diff as harness_diff
from harnessx.scoring.task_score import TaskScore
from harnessx.trajectory import Trajectory

TRIAL_FIELDS = set(TaskScore.model_fields)


@dataclass(frozen=True)
class Candidate:
    name: str            # as the user wrote it, resolved: "R0", "selected" or the hash
    hash: str
    harness: Harness


def text_diff(first: Candidate, second: Candidate) -> list[str]:
    """What differs between the two harnesses: switch changes, then a unified diff per changed
    component (provenance left out; empty when their content is the same)."""
    text = harness_diff(first.harness, second.harness)
    return text.splitlines() if text else []


class SearchRun:
    """Read-only view of one search run directory for comparing two of its candidates."""

    split = "search"
    note = "on the search split (selection data)"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not (self.path / "ledger.jsonl").is_file():
            raise InputError(str(self.path), "not a search run directory (no ledger.jsonl)", "runs/<name>")
        self.ledger = []
        for line in (self.path / "ledger.jsonl").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                self.ledger.append(json.loads(line))
            except ValueError:
                continue  # a torn last line after a kill: that row's candidate simply has no parent here
        self.config = self._json("config.json")

    def _json(self, name: str) -> dict:
        file = self.path / name
        if not file.is_file():
            return {}
        try:
            return json.loads(file.read_text(encoding="utf-8"))
        except ValueError:
            raise InputError(str(file), "is not valid JSON", "the file the search wrote") from None

    def hashes(self) -> list[str]:
        return sorted(p.stem for p in (self.path / "harnesses").glob("*.yaml"))

    def resolve(self, name: str) -> Candidate:
        if name.startswith("parent:"):
            child = self.resolve(name.split(":", 1)[1])
            parents = [r.get("parent") for r in self.ledger if r.get("hash") == child.hash and r.get("parent")]
            if not parents:
                raise InputError(name, f"{child.name} has no parent in the ledger (R0 has none)", "a proposed candidate")
            return self.resolve(parents[0])
        role = {"r0": "r0", "selected": "selected"}.get(name.lower())
        if role:
            harness = Harness.load(self.path / f"{role}.yaml")
            return Candidate("R0" if role == "r0" else "selected", harness.hash, harness)
        found = [h for h in self.hashes() if h.startswith(name.lower())] if len(name) >= 4 else []
        if len(found) != 1:
            what = "matches no candidate" if not found else f"matches {len(found)} candidates"
            raise InputError(name, f"{what} of {self.path}", "R0, selected, parent:<name> or a harness hash "
                             "(4 or more hex digits)")
        return Candidate(found[0], found[0], Harness.load(self.path / "harnesses" / f"{found[0]}.yaml"))

    def trials(self, candidate: Candidate) -> list[tuple[TaskScore, str]]:
        """The candidate's scored trials with their rollout keys (empty if it was never evaluated)."""
        file = self.path / "scores" / f"{candidate.hash}.jsonl"
        out = []
        if not file.is_file():
            return out
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            out.append(scored_trial(line, f"{file}:{number}"))
        return out

    def trajectory(self, key: str) -> Trajectory:
        return cached_trajectory(self.path / "rollouts", key)


def scored_trial(row: str | dict, where: str) -> tuple[TaskScore, str]:
    """One stored trial row (JSON text or parsed) as its score and rollout key; a bad row names `where`."""
    try:
        row = json.loads(row) if isinstance(row, str) else row
        return TaskScore(**{k: v for k, v in row.items() if k in TRIAL_FIELDS}), row.get("key", "")
    except (ValueError, TypeError, AttributeError) as exc:
        raise InputError(where, f"not a scored trial ({exc.__class__.__name__})",
                         "one JSON object per line as the run wrote it") from None


def cached_trajectory(rollouts: Path, key: str) -> Trajectory:
    """The trajectory of rollout `key` in the cache folder `rollouts`."""
    file = rollouts / key[:2] / f"{key}.jsonl"
    if not key or not file.is_file():
        raise InputError(str(file), "no trajectory for this rollout in the run's cache", "a cached rollout")
    return Trajectory.load(file)
