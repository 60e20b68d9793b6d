"""Read-only access to what runs write: run directories, ledgers, harnesses, scores, trajectories.

The viewer never imports search internals to rebuild state: everything here comes from files a
search, eval or compare left under the runs folder (see `harnessx.search.rundir`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from harnessx.harness import Harness
from harnessx.stored import SEAL, digest
from harnessx.trajectory import TamperError, Trajectory

KEY = re.compile(r"^[0-9a-f]{8,64}$")  # rollout keys and harness hashes are lowercase hex
NAME = re.compile(r"^[A-Za-z0-9._-]+$")


class NotFound(LookupError):
    """A run, candidate or trajectory the URL names does not exist."""


@dataclass(frozen=True)
class Chain:
    """A trajectory as stored, with its hash-chain verdict."""

    events: list[dict[str, Any]]
    status: str              # verified / tampered / unreadable
    detail: str = ""


@dataclass
class Run:
    """One folder under the runs root: a search (ledger.jsonl) or an eval/compare output."""

    path: Path
    name: str
    kind: str  # search / eval / compare

    def _json(self, name: str) -> Any:
        file = self.path / name
        if not file.is_file():
            return None
        try:
            return json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    @cached_property
    def config(self) -> dict[str, Any]:
        return self._json("config.json") or {}

    @cached_property
    def summary(self) -> dict[str, Any] | None:
        """summary.json, or None when it was edited after the search wrote it (its sha256 disagrees)."""
        data = self._json("summary.json")
        return None if self.summary_edited else data

    @cached_property
    def summary_edited(self) -> bool:
        data = self._json("summary.json")
        return isinstance(data, dict) and SEAL in data and data[SEAL] != digest(data)

    @cached_property
    def checkpoint(self) -> dict[str, Any] | None:
        return self._json("checkpoint.json")

    @property
    def status(self) -> str:
        if self.kind != "search":
            return "finished"
        if self.summary_edited:
            return "summary.json edited after it was written (restore it, or --resume)"
        if self.checkpoint and self.checkpoint.get("done"):
            return "finished"
        if self.checkpoint:
            return "interrupted (resumable)"
        return "interrupted before R0 (resumable)" if self.config else "unknown"

    @cached_property
    def ledger(self) -> list[dict[str, Any]]:
        file = self.path / "ledger.jsonl"
        rows: list[dict[str, Any]] = []
        if not file.is_file():
            return rows
        for line in file.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue  # a torn last line: shown by the count, not fatal to the viewer
        return rows

    def row(self, harness_hash: str) -> dict[str, Any]:
        for row in self.ledger:
            if row.get("hash") == harness_hash:
                return row
        raise NotFound(f"candidate {harness_hash} is not in {self.name}'s ledger")

    def harness(self, harness_hash: str) -> Harness | None:
        file = self.path / "harnesses" / f"{harness_hash}.yaml"
        return Harness.load(file) if KEY.match(harness_hash) and file.is_file() else None

    def selected(self) -> Harness | None:
        file = self.path / "selected.yaml"
        return Harness.load(file) if file.is_file() else None

    def scores(self, harness_hash: str) -> list[dict[str, Any]]:
        file = self.path / "scores" / f"{harness_hash}.jsonl"
        if not KEY.match(harness_hash) or not file.is_file():
            return []
        return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]

    def score_of(self, key: str) -> dict[str, Any] | None:
        """The scored trial of rollout `key` (any candidate that ran it)."""
        for folder in (self.path / "scores",):
            if not folder.is_dir():
                return None
            for file in sorted(folder.glob("*.jsonl")):
                for line in file.read_text(encoding="utf-8").splitlines():
                    if f'"{key}"' in line:
                        row = json.loads(line)
                        if row.get("key") == key:
                            return row
        return None

    def result(self, key: str) -> dict[str, Any] | None:
        file = self._rollout(key).with_suffix(".json")
        try:
            return json.loads(file.read_text(encoding="utf-8")) if file.is_file() else None
        except ValueError:
            return None

    def _rollout(self, key: str) -> Path:
        if not KEY.match(key):
            raise NotFound(f"{key!r} is not a rollout key")
        return self.path / "rollouts" / key[:2] / f"{key}.jsonl"

    def trajectory(self, key: str) -> Chain:
        file = self._rollout(key)
        if not file.is_file():
            raise NotFound(f"no trajectory {key} in {self.name}")
        text = file.read_text(encoding="utf-8", errors="replace")  # a corrupt file is shown, not a crash
        try:
            traj = Trajectory.from_jsonl(text)
        except ValueError as exc:
            raw = [json.loads(line) for line in text.splitlines() if _is_json(line)]
            return Chain(raw, "unreadable", f"{file.name}: {str(exc).splitlines()[0]}")
        events = [e.model_dump(mode="json") for e in traj.events]
        try:
            traj.verify()
        except TamperError as exc:
            return Chain(events, "tampered", f"{file.name}: {exc}")
        return Chain(events, "verified")

    def _output_files(self) -> list[Path]:
        return [md for md in sorted(self.path.rglob("*.md")) if "rollouts" not in md.relative_to(self.path).parts]

    def output_count(self) -> int:
        return len(self._output_files())

    def outputs(self) -> list[dict[str, Any]]:
        """Compare, eval, probe and report outputs inside the run: Markdown tables and PNG figures."""
        found = []
        for md in self._output_files():
            rel = md.relative_to(self.path)
            figures = sorted(str(p.relative_to(self.path)) for p in md.parent.rglob("*.png"))
            found.append({"name": str(rel), "text": md.read_text(encoding="utf-8"), "figures": figures})
        return found

    def overview(self) -> dict[str, Any]:
        summary, config, cp = self.summary or {}, self.config, self.checkpoint or {}
        simulated = summary.get("simulated", config.get("simulated"))
        return {"name": self.name, "kind": self.kind, "status": self.status,
                "model": summary.get("model", config.get("model", "?")), "simulated": simulated,
                "env": summary.get("env", config.get("env", "?")),
                "objective": summary.get("objective", config.get("objective", "")),
                "rounds": summary.get("rounds_done", cp.get("round")),
                "candidates": len(self.ledger),
                "rollouts": summary.get("rollouts", cp.get("rollouts")),
                "cost_usd": summary.get("cost_usd", cp.get("cost_usd"))}


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class RunsRoot:
    """The runs folder; every request reads the files afresh (a search may still be writing)."""

    root: Path

    def runs(self) -> list[Run]:
        out = []
        if not self.root.is_dir():
            return out
        for path in sorted(self.root.iterdir()):
            if not path.is_dir() or not NAME.match(path.name):
                continue
            if (path / "ledger.jsonl").is_file() or (path / "config.json").is_file():
                kind = "search"
            elif any(path.glob("*.md")) or any(path.glob("*.json")):
                kind = "compare" if path.name.startswith("compare") else "eval"
            else:
                continue
            out.append(Run(path, path.name, kind))
        return out

    def run(self, name: str) -> Run:
        if not NAME.match(name):
            raise NotFound(f"{name!r} is not a run name")
        for run in self.runs():
            if run.name == name:
                return run
        raise NotFound(f"no run {name!r} under the runs folder")
