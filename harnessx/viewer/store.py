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

from harnessx.comparison.compare_trials import trial_files
from harnessx.errors import InputError
from harnessx.harness import Harness
from harnessx.stored import SEAL, digest
from harnessx.viewer.filecache import cached_read
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

    def tracking(self) -> dict[str, Any]:
        """Where the search's candidates are tracked: the MLflow store its mlflow.json records and the
        Optuna journal (or the --storage URL its config names)."""
        recorded = self._json("mlflow.json") or {}
        journal = self.path / "optuna.log"
        return {"uri": recorded.get("tracking_uri"), "parent": recorded.get("parent_run"),
                "optuna": self.config.get("storage") or (f"{self.path.parent.name}/{self.name}/optuna.log"
                                                          if journal.is_file() else None)}

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
        return cached_read(file, _rows)

    def trial_files(self) -> list[Path]:
        """Every file of scored trials: the search's per-candidate scores, then the compares' and evals'
        per-trial rows (in the run folder, or in the compare a search run holds)."""
        folder = self.path / "scores"
        found = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
        return found + trial_files(self.path) + trial_files(self.path / "compare")

    def score_of(self, key: str) -> dict[str, Any] | None:
        """The scored trial of rollout `key` (the first candidate or contender that ran it), with
        `candidate` set to the harness hash; for a compare's or eval's trial, `trials_at` is the folder
        it is from ("" for the run itself, None for a search candidate's) and `first_hash` the first
        contender's hash."""
        for file in self.trial_files():
            row = cached_read(file, _by_key).get(key)
            if row is None:
                continue
            if file.parent.name == "scores":
                return {**row, "candidate": file.stem, "trials_at": None}
            at = file.parent.relative_to(self.path).as_posix()
            first = ((cached_read(file, _header).get("contenders") or [{}])[0]).get("hash")
            return {**row, "candidate": row.get("hash"), "trials_at": "" if at == "." else at, "first_hash": first}
        return None

    def parent_trial(self, score: dict[str, Any]) -> dict[str, Any] | None:
        """The parent candidate's trial of the same task and seed (a search's candidate), if it ran it."""
        if score.get("trials_at") is not None or not KEY.match(str(score.get("candidate", ""))):
            return None
        parent = next((r.get("parent") for r in self.ledger if r.get("hash") == score["candidate"] and r.get("parent")), None)
        if not parent:
            return None
        return next(({**row, "candidate": parent} for row in self.scores(parent)
                     if row.get("task_id") == score.get("task_id") and row.get("seed") == score.get("seed")), None)

    def sub(self, at: str) -> Path:
        """A folder inside the run (`compare`), by a plain name only."""
        if not NAME.match(at) or at.startswith(".") or not (self.path / at).is_dir():
            raise NotFound(f"{at!r} is not a folder of {self.name}")
        return self.path / at

    def heldout_trials(self) -> bool:
        """Whether a compare inside this search run wrote per-trial rows (its held-out flips)."""
        return bool(trial_files(self.path / "compare"))

    def result(self, key: str) -> dict[str, Any] | None:
        file = self._rollout(key).with_suffix(".json")
        try:
            return json.loads(file.read_text(encoding="utf-8")) if file.is_file() else None
        except ValueError:
            return None

    def _rollout(self, key: str) -> Path:
        """The trajectory file of `key`: in the run's rollout cache, else in the cache a compare or eval
        of the folder names in its trials header (a compare --out beside its search run), when that
        cache lies under the runs folder."""
        if not KEY.match(key):
            raise NotFound(f"{key!r} is not a rollout key")
        own = self.path / "rollouts" / key[:2] / f"{key}.jsonl"
        if own.is_file():
            return own
        root = self.path.parent.resolve()
        for file in trial_files(self.path):
            try:
                cache = (self.path / str(cached_read(file, _header).get("rollouts", "rollouts"))).resolve()
            except InputError:
                continue
            if (cache == root or root in cache.parents) and (cache / key[:2] / f"{key}.jsonl").is_file():
                return cache / key[:2] / f"{key}.jsonl"
        return own

    def rollout_keys(self) -> list[str]:
        """Every trajectory in the run's own rollout cache, by key."""
        folder = self.path / "rollouts"
        if not folder.is_dir():
            return []
        return sorted(f.stem for sub in folder.iterdir() if sub.is_dir() for f in sub.iterdir()
                      if f.suffix == ".jsonl" and KEY.match(f.stem))

    def rollout_file(self, key: str) -> Path:
        """The stored trajectory file of `key` (NotFound when there is none)."""
        file = self._rollout(key)
        if not file.is_file():
            raise NotFound(f"no trajectory {key} in {self.name}")
        return file

    def trajectory(self, key: str) -> Chain:
        file = self.rollout_file(key)
        text = file.read_text(encoding="utf-8", errors="replace")  # a corrupt file is shown, not a crash
        try:
            traj = Trajectory.from_jsonl(text)
        except ValueError as exc:
            raw = [{"kind": "?", "author": "?", "step": None, "t": None, **e, "data": e.get("data") or {}}
                   for e in (json.loads(line) for line in text.splitlines() if _is_json(line)) if isinstance(e, dict)]
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
        """Compare, eval, probe and report outputs inside the run: the HTML page each wrote next to its
        Markdown (shown rendered, figures included), else the Markdown text and the PNG figures."""
        found = []
        for md in self._output_files():
            rel, page = md.relative_to(self.path), md.with_suffix(".html")
            if page.is_file():
                found.append({"name": str(rel), "html": page.relative_to(self.path).as_posix(), "figures": []})
                continue
            figures = sorted(str(p.relative_to(self.path)) for p in md.parent.rglob("*.png"))
            found.append({"name": str(rel), "text": md.read_text(encoding="utf-8"), "figures": figures})
        return found

    @cached_property
    def result_json(self) -> dict[str, Any]:
        """The newest result JSON an eval, compare, probe or benchmark run wrote at the folder's top
        (the one naming its model), for the runs list; empty for a search."""
        if self.kind == "search":
            return {}
        for file in sorted(self.path.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True):
            data = self._json(file.name)
            if isinstance(data, dict) and "model" in data:
                return {**data, "_file": file.name}
        return {}

    def _contenders(self, data: dict[str, Any]) -> dict[str, Any]:
        """The contenders whose per-trial rows were written (each has a page), and the first two's hashes
        (a flip page pairs them)."""
        found = [c for c in data.get("contenders") or [] if isinstance(c, dict) and c.get("hash")]
        found = found if trial_files(self.path) else []
        return {"contenders": found, "pair": [c["hash"] for c in found[:2]] if len(found) >= 2 else None}

    def rollout_count(self) -> int | None:
        """Rollouts the folder's evals/compares scored (distinct keys of their per-trial rows), else the
        trajectories in its rollout cache."""
        files = trial_files(self.path)
        if files:
            try:
                return len(set().union(*(cached_read(file, _by_key) for file in files)))
            except InputError:
                return None  # the runs list still opens; the run's own pages name the file
        return len(self.rollout_keys()) if (self.path / "rollouts").is_dir() else None

    def overview(self) -> dict[str, Any]:
        if self.kind != "search":
            data = self.result_json
            return {"name": self.name, "kind": self.kind, "status": self.status,
                    "model": data.get("model", "?"), "simulated": data.get("simulated"),
                    "env": data.get("env") or data.get("suite") or "?", "objective": "", "rounds": None,
                    "candidates": len(data.get("contenders") or []) or None, "rollouts": self.rollout_count(),
                    "cost_usd": data.get("cost_usd"), "cached": (self.path / "rollouts").is_dir(),
                    **self._contenders(data)}
        summary, config, cp = self.summary or {}, self.config, self.checkpoint or {}
        simulated = summary.get("simulated", config.get("simulated"))
        return {"name": self.name, "kind": self.kind, "status": self.status,
                "model": summary.get("model", config.get("model", "?")), "simulated": simulated,
                "env": summary.get("env", config.get("env", "?")),
                "objective": summary.get("objective", config.get("objective", "")),
                "rounds": summary.get("rounds_done", cp.get("round")),
                "candidates": len(self.ledger),
                "rollouts": summary.get("rollouts", cp.get("rollouts")),
                "claim_rollouts": (summary.get("claim") or {}).get("rollouts"),
                "cost_usd": summary.get("cost_usd", cp.get("cost_usd"))}


def _rows(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _header(text: str) -> dict[str, Any]:
    first = json.loads(text.split("\n", 1)[0] or "{}")
    return first if isinstance(first, dict) else {}


def _by_key(text: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for row in _rows(text):
        if isinstance(row, dict) and row.get("key"):
            out.setdefault(row["key"], row)
    return out


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def _kind(path: Path) -> str:
    """compare / eval / belief / challenge / a benchmark's eval ...: the word its result files start
    with (`compare-heldout-<digest>.json`, `<benchmark>-eval.json`), else the folder's name."""
    stems = [p.stem.split("-")[0].split("_")[0] for p in sorted(path.glob("*.json"))]
    words = [w for w in stems if w and w not in ("results", "config", "summary")]
    return words[0] if words else path.name.split("-")[0]


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
                kind = _kind(path)
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
