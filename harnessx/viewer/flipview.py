"""The viewer's flip pages: what an edit changed between two candidates of a search (its search split)
or two contenders of a compare (its held-out split), and one task's two trajectories side by side. The
same computation as `harnessx diff` (`harnessx.comparison.flips`, `sidebyside`), shaped for templates;
a name that resolves to nothing is the viewer's 404."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harnessx.comparison.flips import flips as compute_flips
from harnessx.comparison.compare_trials import CompareRun, open_trials
from harnessx.comparison.run_trials import text_diff
from harnessx.comparison.sidebyside import align
from harnessx.errors import HarnessXError
from harnessx.search.objectives import get_objective
from harnessx.viewer.store import NotFound


def _open(path: Path, a: str, b: str, split: str | None):
    try:
        run = open_trials(path, split)
        return run, run.resolve(a), run.resolve(b)
    except HarnessXError as exc:
        raise NotFound(str(exc)) from None


def flips(path: Path, a: str, b: str, objective: str | None = None, split: str | None = None) -> dict[str, Any]:
    run, first, second = _open(path, a, b, split)
    try:
        obj = get_objective(objective or run.config.get("objective") or "joint")
    except HarnessXError as exc:
        raise NotFound(str(exc)) from None
    report = compute_flips(run.trials(first), run.trials(second), obj, (first.name, second.name))
    data = report.to_dict()
    data["a"], data["b"], data["split"], data["note"] = first.hash, second.hash, run.split, run.note
    data["harness_diff"] = "\n".join(text_diff(first, second))
    return data


def contender(path: Path, harness_hash: str, split: str | None = None) -> dict[str, Any]:
    """One contender of a compare or eval on one split: its trial rows, and the flips of those trials
    against the first contender (R0, for a search's compare)."""
    try:
        run = open_trials(path, split)
        if not isinstance(run, CompareRun):
            raise NotFound(f"{path.name} is a search run: its candidates have their own pages")
        mine, first = run.resolve(harness_hash), run.resolve(run.header["contenders"][0]["hash"])
        objective = get_objective(run.config.get("objective") or "joint")
    except HarnessXError as exc:
        raise NotFound(str(exc)) from None
    rows = [r for r in run.rows if r.get("hash") == mine.hash and r.get("split") == run.split]
    moved = compute_flips(run.trials(first), run.trials(mine), objective) if first.hash != mine.hash else None
    return {"name": mine.name, "hash": mine.hash, "split": run.split, "rows": rows,
            "first": first.name, "first_hash": first.hash, "contenders": run.header["contenders"],
            "flips": {(f.task_id, f.seed): "gained" if f.gained else "lost" for f in moved.flips} if moved else {}}


def side_by_side(path: Path, a: str, b: str, task: str, seed: int | None, split: str | None = None) -> dict[str, Any]:
    run, first, second = _open(path, a, b, split)

    def key(trials) -> tuple[str, int] | None:
        return next(((k, s.seed) for s, k in trials if s.task_id == task and (seed is None or s.seed == seed)), None)

    ka, kb = key(run.trials(first)), key(run.trials(second))
    if ka is None or kb is None:
        raise NotFound(f"task {task!r} (seed {seed}) was not run by both {first.name} and {second.name}")
    try:
        rows, divergence = align(run.trajectory(ka[0]), run.trajectory(kb[0]))
    except HarnessXError as exc:
        raise NotFound(str(exc)) from None
    return {"task": task, "seed": ka[1], "split": run.split, "a": first.name, "b": second.name,
            "a_hash": first.hash, "b_hash": second.hash, "a_key": ka[0], "b_key": kb[0], "rows": rows, "divergence": divergence,
            "harness_diff": "\n".join(text_diff(first, second))}
