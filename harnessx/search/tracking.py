"""Tracking: an Optuna study (one trial per candidate) and MLflow (a parent run per search, a
nested run per candidate). Both are written from the search's single thread with explicit ids
(`MlflowClient`, `create_trial`/`add_trial`), and both skip a candidate they already hold, so a
resumed round never logs twice.
"""

from __future__ import annotations

import logging
import time
import uuid
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    IntDistribution,
)
from optuna.trial import TrialState

from harnessx import failpoints
from harnessx.evaluation import Evaluation
from harnessx.formatting.judged import subset_label
from harnessx.harness import Harness, diff
from harnessx.logs import library_level
from harnessx.search.mlflow_traces import RolloutBatch, TraceContext, log_traces
from harnessx.search.space import SearchSpace, contains
from harnessx.search.uris import DEFAULT_MLFLOW_URI  # noqa: F401 - re-exported: callers import it from here

optuna.logging.set_verbosity(library_level())  # warning, unless HARNESSX_LOG / --verbose asks for more
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
logging.getLogger("mlflow").setLevel(library_level())


def open_study(storage: str | None, journal: Path, name: str, objective: str) -> optuna.Study:
    """The search's study: a journal file by default, or any Optuna storage URL (RDB)."""
    if storage:
        store: Any = storage
    else:
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        store = JournalStorage(JournalFileBackend(str(journal)))
    study = optuna.create_study(study_name=name, storage=store, direction="maximize", load_if_exists=True)
    study.set_metric_names([f"{objective} minus incumbent (paired, tasks judged on)"])
    return study


NO_CLAUSE = "none"


def clause_distributions(space: SearchSpace) -> dict[str, BaseDistribution]:
    """One categorical param per clause library, `clause:<library>`, whose choices are the library's
    clause ids and "none": the same distribution on every trial, so Optuna can rank the edits."""
    return {f"clause:{name}": CategoricalDistribution([*(c.id for c in lib.clauses), NO_CLAUSE])
            for name, lib in space.libraries.items()}


def clause_params(space: SearchSpace, harness: Harness) -> dict[str, str]:
    """The clause each library's component holds in `harness` ("none" when it holds none of them)."""
    return {f"clause:{name}": getattr(lib.current(harness), "id", NO_CLAUSE) for name, lib in space.libraries.items()}


def switch_distributions(space: SearchSpace, study: optuna.Study) -> dict[str, BaseDistribution]:
    """The space's switches as trial params. An integer range is recorded as a categorical of its values:
    Optuna's fANOVA importance credits a numeric param that never varied (max_steps 15 on every trial)
    with most of the importance, a categorical one with about none. A study that already holds a
    switch keeps the distribution its trials have (a resumed search stays consistent)."""
    held = {k: d for t in study.get_trials(deepcopy=False) for k, d in t.distributions.items()}
    out = {}
    for name, dist in space.distributions().items():
        if isinstance(dist, IntDistribution):
            dist = CategoricalDistribution(list(range(dist.low, dist.high + 1, dist.step)))
        out[name] = held.get(name, dist)
    return out


class OptunaLedger:
    def __init__(self, study: optuna.Study, space: SearchSpace):
        self.study, self.space, self.distributions = study, space, switch_distributions(space, study)
        self._have = {(t.user_attrs.get("round"), t.user_attrs.get("slot")): t.number
                      for t in study.get_trials(deepcopy=False)}

    def add(self, row: dict[str, Any], harness: Harness) -> int:
        """Record one candidate; returns its trial number. Every judged candidate is a COMPLETE trial
        whose value is its paired difference from the incumbent on the tasks it was judged on (R0: 0),
        the figure its acceptance rule compared: a raced-out candidate's k/n on a screened subset is
        never set beside a whole-split one. Intermediate values: that difference at each rung (step =
        tasks judged on); start and end: when its round's judging started and ended."""
        if (row["round"], row["slot"]) in self._have:
            return self._have[(row["round"], row["slot"])]
        switches = harness.switches.model_dump()
        dists = {k: d for k, d in self.distributions.items() if contains(d, switches[k])}
        judged = row.get("judged") or {}
        attrs = {k: row[k] for k in ("round", "slot", "hash", "parent", "edit", "accepted", "p_value",
                                     "p_adjusted", "ci", "mean_diff", "stage", "reason", "mlflow_run_id")}
        attrs.update(objective=f"{row['objective']['k']}/{row['objective']['n']}" if "k" in row["objective"]
                     else row["objective"].get("value"), judged_on=subset_label(row) or "the whole search split",
                     incumbent_on_same_tasks=judged.get("incumbent"), candidate_on_same_tasks=judged.get("candidate"))
        params = {**{k: switches[k] for k in dists}, **clause_params(self.space, harness)}
        value = judged.get("diff") if judged else row["mean_diff"] if row["parent"] else 0.0
        trial = optuna.trial.create_trial(
            state=TrialState.COMPLETE if value is not None else TrialState.FAIL, value=value,
            intermediate_values={int(n): d for n, d in (judged.get("rungs") or {}).items()},
            params=params, distributions={**dists, **clause_distributions(self.space)}, user_attrs=attrs)
        for field, stamp in (("datetime_start", row.get("started")), ("datetime_complete", row.get("finished"))):
            if stamp:  # Optuna's own clock: naive local time
                setattr(trial, field, datetime.fromisoformat(stamp).astimezone().replace(tzinfo=None))
        self.study.add_trial(trial)
        failpoints.hit("optuna.add")
        number = self.study.get_trials(deepcopy=False)[-1].number
        self._have[(row["round"], row["slot"])] = number
        return number

    def mark_selected(self, selected_hash: str, selected_round: int) -> None:
        """Point the study at HarnessX's selection: study attrs `selected_trial`, `selected_hash`,
        `selected_round`, and `selection_note` where Optuna's `best_trial` (the largest paired
        difference, which no acceptance rule confirmed) is another trial. Optuna refuses to change a
        finished trial, so the selected trial itself carries `accepted=True` from its creation and the
        study attrs name it; values are never altered."""
        mine = [t for t in self.study.get_trials(deepcopy=False) if t.user_attrs.get("hash") == selected_hash]
        chosen = next((c for c in ([t for t in mine if t.user_attrs.get("round") == selected_round],
                                   [t for t in mine if t.user_attrs.get("accepted")]) if c), [])
        if not chosen:
            return
        trial = chosen[-1]
        best = self.study.best_trial
        for key, value in {"selected_trial": trial.number, "selected_hash": selected_hash,
                           "selected_round": selected_round}.items():
            self.study.set_user_attr(key, value)
        note = ("" if best.number == trial.number or trial.value is None else
                f"HarnessX selected trial {trial.number} (paired difference {trial.value:+.4f} from its incumbent, the "
                f"last harness an acceptance rule confirmed), not Optuna's best_trial {best.number} ({best.value:+.4f}: "
                "Optuna ranks the differences alone, each against the incumbent of its round and on the tasks it was "
                "judged on); the selection is the trial the study attr selected_trial names")
        self.study.set_user_attr("selection_note", note)


class MlflowTracker:
    """MLflow on a database store (the file store is refused by current MLflow)."""

    def __init__(self, uri: str, experiment: str, artifact_root: Path | None = None):
        import mlflow
        from mlflow import MlflowClient

        self.mlflow, self.uri = mlflow, uri
        if uri.startswith("sqlite:///"):
            Path(uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.client = MlflowClient(tracking_uri=uri, registry_uri=uri)
        found = self.client.get_experiment_by_name(experiment)
        if found is not None:
            self.experiment_id = found.experiment_id
        else:
            location = artifact_root.resolve().as_uri() if artifact_root else None
            self.experiment_id = self.client.create_experiment(experiment, artifact_location=location)
        self.parent_id: str | None = None

    def launched(self, launch: str) -> str | None:
        """The parent run created with this launch tag, if a process created one before it was killed."""
        found = self.client.search_runs([self.experiment_id], max_results=1,
                                        filter_string=f"tags.`harnessx.launch` = '{launch}'")
        return found[0].info.run_id if found else None

    def start(self, run_name: str, params: dict[str, Any], tags: dict[str, str], parent_id: str | None) -> str:
        if parent_id is None:
            parent_id = self.client.create_run(self.experiment_id, run_name=run_name, tags=tags).info.run_id
            self._log(parent_id, params=params)
            failpoints.hit("mlflow.parent")
        else:
            self.client.update_run(parent_id, status="RUNNING")
        self.parent_id = parent_id
        return parent_id

    def candidate(self, row: dict[str, Any], harness: Harness, parent: Harness | None, evaluation: Evaluation,
                  tags: dict[str, str], trajectories: dict[str, str], traced: RolloutBatch | None = None) -> str:
        """A nested run for one candidate (reused if the round was already logged), with `traced`'s
        rollouts as MLflow traces of that run."""
        found = self.client.search_runs(
            [self.experiment_id],
            filter_string=(f"tags.mlflow.parentRunId = '{self.parent_id}' and tags.`harnessx.round` = "
                           f"'{row['round']}' and tags.`harnessx.slot` = '{row['slot']}'"))
        for run in found:  # a process killed while logging this candidate left its run open: close it
            if run.info.status == "RUNNING":
                self.client.set_terminated(run.info.run_id, status="KILLED")
        complete = [run for run in found if run.info.status == "FINISHED"]
        if complete:
            return complete[0].info.run_id
        run_id = self.client.create_run(
            self.experiment_id, run_name=f"r{row['round']}-s{row['slot']}-{row['hash'][:8]}",
            tags={**tags, "mlflow.parentRunId": self.parent_id, "harnessx.round": str(row["round"]),
                  "harnessx.slot": str(row["slot"]), "harnessx.hash": row["hash"],
                  "harnessx.accepted": str(row["accepted"]).lower(), "harnessx.stage": row["stage"],
                  "harnessx.judged_on": subset_label(row) or "the whole search split",
                  "mlflow.note.content": f"{note(row)}\n\n{tags.get('mlflow.note.content', '')}".strip()}).info.run_id
        card, judged = row["scorecard"], row.get("judged") or {}
        metrics = {"objective": row["objective"]["value"], "objective_n": row["objective"]["n"],
                   "judged_tasks": judged.get("tasks"), "split_tasks": judged.get("of"),
                   "diff_vs_incumbent_same_tasks": judged.get("diff"),
                   "incumbent_same_tasks": judged.get("incumbent"), "candidate_same_tasks": judged.get("candidate"),
                   **{k: card[k]["value"] for k in ("strict_sa", "relaxed_sa", "solve", "false_abstention", "joint")},
                   "p_value": row["p_value"], "p_adjusted": row["p_adjusted"], "mean_diff": row["mean_diff"],
                   "rollouts": row["rollouts"], "accepted": float(row["accepted"])}
        params = {"round": row["round"], "slot": row["slot"], "parent": row["parent"], "edit": row["edit"],
                  **{f"switch.{k}": v for k, v in harness.switches.model_dump().items()}}
        self._log(run_id, params=params, metrics=metrics, step=row["round"])
        failpoints.hit("mlflow.candidate")
        self.client.log_text(run_id, harness.to_yaml(), "harness.yaml")
        self.client.log_text(run_id, row["rationale"] or "", "proposal/rationale.md")
        self.client.log_text(run_id, row["reason"] or "", "acceptance/reason.md")
        if parent is not None:
            self.client.log_text(run_id, diff(parent, harness) or "(no change)", "proposal/diff.txt")
        self.client.log_table(run_id, per_task_table(evaluation), "per_task.json")
        for name, text in trajectories.items():
            self.client.log_text(run_id, text, f"trajectories/{name}.txt")
        if traced is not None:
            ids = log_traces(TraceContext(self.uri, self.experiment_id, run_id, row["hash"], row["round"], row["slot"]),
                             traced)
            self.client.set_tag(run_id, "harnessx.traces", f"{len(ids)} of {len(traced.rollouts)}")
        self.client.set_terminated(run_id)
        return run_id

    def round(self, step: int, metrics: dict[str, float | None]) -> None:
        self._log_once(step, metrics)

    def finish(self, summary_path: Path, selected_path: Path, metrics: dict[str, float | None]) -> None:
        self._log_once(0, metrics)
        self.client.log_artifact(self.parent_id, str(summary_path))
        self.client.log_artifact(self.parent_id, str(selected_path))
        failpoints.hit("mlflow.finish")
        self.client.set_terminated(self.parent_id)

    def kill(self) -> None:
        """Close the parent run as KILLED (an interrupted search; --resume reopens it)."""
        if self.parent_id is not None:
            self.client.set_terminated(self.parent_id, status="KILLED")

    def _log_once(self, step: int, metrics: dict[str, float | None]) -> None:
        """The parent's metrics for one step, unless already there: a round or a search end re-done after
        a kill (logged, not yet checkpointed) does not add a second point. One log_batch is one write."""
        first = next((k for k, v in metrics.items() if v is not None), None)
        if first is None or any(m.step == step for m in self.client.get_metric_history(self.parent_id, first)):
            return
        self._log(self.parent_id, metrics=metrics, step=step)

    def _log(self, run_id: str, params: dict | None = None, metrics: dict | None = None, step: int = 0) -> None:
        from mlflow.entities import Metric, Param

        now = int(time.time() * 1000)
        self.client.log_batch(
            run_id,
            metrics=[Metric(k, float(v), now, step) for k, v in (metrics or {}).items() if v is not None],
            params=[Param(k, str(v)[:6000]) for k, v in (params or {}).items()])


def open_parent(tracker: MlflowTracker, run_dir: Any, uri: str, parent_id: str | None, run_name: str,
                params: dict[str, Any], tags: dict[str, str]) -> str:
    """The search's parent run: the one the checkpoint or `mlflow.json` names, else the one a killed
    process created before its id reached `mlflow.json` (found by the launch tag written there first),
    else a new one. `run_dir` is the search's RunDir."""
    recorded = run_dir.read_json("mlflow.json") if (run_dir / "mlflow.json").is_file() else {}
    parent_id = parent_id or recorded.get("parent_run")
    launch = recorded.get("launch") or uuid.uuid4().hex
    if parent_id is None:
        run_dir.write_json("mlflow.json", {"launch": launch, "tracking_uri": uri})
        parent_id = tracker.launched(launch)
    parent_id = tracker.start(run_name, params, {**tags, "harnessx.launch": launch}, parent_id)
    run_dir.write_json("mlflow.json", {"parent_run": parent_id, "launch": launch, "tracking_uri": uri})
    return parent_id


def note(row: dict[str, Any]) -> str:
    """A candidate run's description (MLflow's run page shows it first): what its scores are measured on."""
    judged, label = row.get("judged") or {}, subset_label(row)
    on = (f"**{label}**: its objective and scorecard count those tasks only, not comparable with a whole-split "
          "run's" if label else "Judged on the whole search split.")
    versus = (f" Against its incumbent on the same {judged['matched']} tasks: {judged['candidate']:.3f} vs "
              f"{judged['incumbent']:.3f}, paired difference {judged['diff']:+.3f} (metric diff_vs_incumbent_same_tasks)."
              if judged.get("diff") is not None and row.get("parent") else "")
    return f"R{row['round']}.{row['slot']} {row['edit'] or 'initial harness (R0)'}. {on}{versus} Verdict: {row['reason']}"


def per_task_table(evaluation: Evaluation) -> dict[str, list]:
    """One row per rollout: task, stratum, family, seed, success, failure mode."""
    rows = [(s.task_id, "feasible" if s.feasible else "blocked", s.family or "", s.seed, s.valid,
             float(s.success), s.failure_mode or "") for s in evaluation.scores]
    columns = ("task", "stratum", "family", "seed", "valid", "success", "failure_mode")
    return {c: [r[i] for r in rows] for i, c in enumerate(columns)}


def log_worker_run(uri: str, run_name: str, worker: str, metrics: dict[str, float]) -> str | None:
    """A `harnessx worker`'s nested run under its search's parent run (found by the run's tag), with what
    it did; explicit run ids through `MlflowClient`, never the fluent API. None if the search has no
    parent run on that server."""
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("harnessx-search")
    if experiment is None:
        return None
    runs = client.search_runs([experiment.experiment_id], filter_string=f"tags.`harnessx.run` = '{run_name}'",
                              order_by=["attributes.start_time DESC"])
    parent = next((r for r in runs if "mlflow.parentRunId" not in r.data.tags), None)
    if parent is None:
        return None
    run_id = client.create_run(experiment.experiment_id, run_name=f"worker-{worker}", tags={
        "mlflow.parentRunId": parent.info.run_id, "harnessx.run": run_name, "harnessx.worker": worker}).info.run_id
    from mlflow.entities import Metric

    now = int(time.time() * 1000)
    client.log_batch(run_id, metrics=[Metric(k, float(v), now, 0) for k, v in metrics.items()])
    client.set_terminated(run_id)
    return run_id
