"""Evaluate contenders on splits and assemble the comparison (the JSON behind every table).

Per split: each harness's scorecard block and its paired differences against the first contender.
Transfer: per harness, its search-split score (evaluated here when `search` is among the splits,
else as the search recorded it) next to each held-out split's score. The search split is where a
search selects, so its numbers are labelled as selection data and never reported as held-out.
"""

from __future__ import annotations

from harnessx.agent.runner import ProgressFn, Runner
from harnessx.comparison.compare_trials import trial_rows
from harnessx.comparison.metrics import ROWS, scorecard_block
from harnessx.comparison.paired import paired_differences
from harnessx.comparison.runs import Contender
from harnessx.comparison.values import benchmark_blocks, value_differences, values_block
from harnessx.evaluation import Evaluation, evaluate, require_evaluated
from harnessx.scoring import Judge
from harnessx.scoring.baseline import blanket_defer
from harnessx.tasks import Task

SEARCH = "search"
TRANSFER_METRICS = ("strict_sa", "solve", "joint", "joint_clean", "pairs")


def task_counts(tasks: list[Task]) -> dict:
    return {"n_tasks": len(tasks), "n_blocked": sum(not t.feasible for t in tasks),
            "n_feasible": sum(t.feasible for t in tasks), "n_sources": len({t.source_id for t in tasks})}


def split_block(split: str, tasks: list[Task], evaluations: dict[str, Evaluation], n_resamples: int,
                seed: int) -> dict:
    labels = list(evaluations)
    return {
        "split": split, **task_counts(tasks),
        "harnesses": {label: scorecard_block(e) for label, e in evaluations.items()},
        "differences": [{"first": label, "second": labels[0],
                         "metrics": paired_differences(evaluations[label], evaluations[labels[0]], n_resamples, seed),
                         "values": value_differences(evaluations[label], evaluations[labels[0]], n_resamples, seed)}
                        for label in labels[1:]],
        "values": {label: values_block(e) for label, e in evaluations.items()},  # benchmark values (KAPRO, ...)
        "benchmarks": {label: benchmark_blocks(e) for label, e in evaluations.items()},
        "blanket_defer": blanket_defer(tasks),  # what deferring on every task would score here
    }


def _search_metrics(contender: Contender, splits: dict, env: str | None = None) -> tuple[dict | None, str]:
    if SEARCH in splits:
        return splits[SEARCH]["harnesses"][contender.label]["metrics"], "evaluated here"
    if contender.run is not None:
        card = contender.run.search_scorecard(contender.role, contender.harness.hash)
        if card:
            metrics = {m: card[m] for m in ROWS if m in card}
            searched_on = contender.run.config.get("env")  # named when it is another suite (a transfer)
            source = f"recorded by search {contender.run.name}" + (
                f" on env {searched_on}" if searched_on and searched_on != env else "")
            strata = _search_strata(contender)
            if strata is not None and "feasible" not in strata:
                # a blocked-only search (objective sa): its solve is empty and its "joint" is strict SA
                # over blocked tasks, not the pooled joint the held-out column shows
                metrics = {m: v for m, v in metrics.items() if m not in FEASIBLE_DEPENDENT}
                source += f" (objective {contender.run.config.get('objective')}: blocked tasks only, so solve and " \
                          "joint are not comparable)"
            return metrics, source
    return None, "not available"


FEASIBLE_DEPENDENT = ("solve", "false_abstention", "joint", "joint_clean", "pairs")


def _search_strata(contender: Contender) -> tuple[str, ...] | None:
    """The strata the contender's search evaluated on (its objective's), when known."""
    from harnessx.benchmarks.registry import objectives

    objective = objectives().get(str(contender.run.config.get("objective")))
    return tuple(objective.strata) if objective is not None else None


def transfer_rows(contenders: list[Contender], splits: dict, env: str | None = None) -> list[dict]:
    """Search-split (selection data) vs held-out score of the same harness, per held-out split."""
    rows = []
    for contender in contenders:
        search, source = _search_metrics(contender, splits, env)
        for split, block in splits.items():
            if split == SEARCH:
                continue
            held = block["harnesses"][contender.label]["metrics"]
            rows.append({"label": contender.label, "split": split, "search_source": source, "metrics": {
                m: {"search": (search or {}).get(m), "heldout": held.get(m),
                    "delta": _delta(held.get(m), (search or {}).get(m))} for m in TRANSFER_METRICS}})
    return rows


def _delta(held: dict | None, search: dict | None) -> float | None:
    if not search or not held or held.get("value") is None or search.get("value") is None:
        return None
    return held["value"] - search["value"]


async def compare(runner: Runner, contenders: list[Contender], tasks_by_split: dict[str, list[Task]],
                  seeds: list[int], judge: Judge | None = None, n_resamples: int = 10_000, seed: int = 0,
                  progress: ProgressFn | None = None, command: str = "compare", trials: list | None = None) -> dict:
    """The comparison's JSON; with `trials`, each contender's per-trial rows are appended to it."""
    splits, ran = {}, []
    for split, tasks in tasks_by_split.items():
        evaluations = {c.label: await evaluate(runner, c.harness, tasks, seeds, judge, progress) for c in contenders}
        if trials is not None:
            trials += [row for c in contenders for row in trial_rows(c, evaluations[c.label])]
        splits[split] = split_block(split, tasks, evaluations, n_resamples, seed)
        ran += evaluations.values()
    require_evaluated(command, ran)
    return {"env": runner.suite.name, "model": runner.model.describe(), "simulated": runner.model.simulated,
            "seeds": list(seeds), "n_resamples": n_resamples, "bootstrap_seed": seed,
            "contenders": [c.to_dict() for c in contenders], "splits": splits,
            "transfer": transfer_rows(contenders, splits, runner.suite.name)}
