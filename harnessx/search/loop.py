"""The search loop: R0, then rounds of K proposals judged against the incumbent on the search split.

Each round is logged (ledger, Optuna, MLflow) and then checkpointed atomically; a resumed search
re-proposes the interrupted round exactly (proposers are pure functions of the history) and the
rollout cache serves every rollout it had already finished.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.agent.shared_cache import shared_cache
from harnessx.envs.base import Suite
from harnessx.envs.registry import get_suite
from harnessx.envs.subset import select_tasks
from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.models.client import ModelClient
from harnessx.scoring import Judge
from harnessx.search.acceptance import AcceptanceRule, Verdict
from harnessx.stored import seal
from harnessx.models.preflight import preflight
from harnessx.search.reporter import Reporter, announce
from harnessx.search.arena import Arena, BudgetExhausted, check_budget_buys_r0
from harnessx.search.breaker import CircuitBreaker, ModelOutage
from harnessx.search.certify import CertifyConfig, claim_line, claim_metrics, search_claim
from harnessx.search.config import SearchConfig
from harnessx.search.uris import absolute_uri, check_stores
from harnessx.search.budget import budget_left, round_proposals
from harnessx.search.distributed import search_executor
from harnessx.search.headline import headline_metric, headline_of
from harnessx.search.judged import judged_on, now
from harnessx.search.objectives import check_measured, get_objective
from harnessx.search.proposers import Proposal, Proposer, RoundContext, make_proposer
from harnessx.search.mlflow_traces import RolloutBatch, pick
from harnessx.search.traces import failing
from harnessx.search.rundir import RunDir
from harnessx.search.rules import as_json, check_settings, make_acceptance, takes_alpha
from harnessx.search.space import load_space
from harnessx.search.tracking import MlflowTracker, OptunaLedger, open_parent, open_study
from harnessx.tasks import suite_hash

CHECKPOINT_VERSION = 1
TRAJECTORIES_PER_CANDIDATE = 3


@dataclass
class SearchResult:
    run_dir: Path
    r0: Evaluation
    selected: Evaluation
    summary: dict[str, Any]
    ledger: list[dict[str, Any]] = field(default_factory=list)


class Search:
    """One search: R0, then rounds of proposals judged on the search split, then the certified claim.

    Built from a `SearchConfig`; `await Search(config).run()` runs it and returns a `SearchResult`
    (the run directory holds the ledger, the selected harness and the summary that `harnessx
    compare`, `report`, `view` and `export` read). Strategy objects may be given directly instead of
    by name: `suite` (an environment suite), `proposer` (a `Proposer`), `acceptance` (an
    `AcceptanceRule`), `judge`, `reporter` (progress) and `certify` (where the claim is tested).
    A proposer or rule outside the seam is refused with a TypeError.
    """

    def __init__(self, config: SearchConfig, *, suite: Suite | None = None, proposer: Proposer | None = None,
                 acceptance: AcceptanceRule | None = None, judge: Judge | None = None,
                 reporter: Reporter | None = None, certify: CertifyConfig | None = None):
        self.config = config
        self.objective = get_objective(config.run.objective)
        self.space = load_space(config.run.space)
        self.suite = suite or get_suite(config.run.env, **config.run.suite_options)
        self.tasks = select_tasks(self.suite.tasks("search"), config.run.sources, config.run.task_ids)
        check_measured(self.objective, self.tasks, config.run.env)
        self.headline = headline_of(self.tasks)  # the metrics each round reports: its benchmark's
        self.certify = certify or CertifyConfig()  # the claim at the end: where and on how many seeds
        self.certify.tasks(self.suite, self.objective)  # a named split without tasks fails before any rollout
        self.model = ModelClient(config.run.model, api_base=config.run.api_base, temperature=config.run.temperature,
                                 top_p=config.run.top_p, reasoning_effort=config.run.reasoning_effort)
        if proposer is not None and not isinstance(proposer, Proposer):
            raise TypeError(f"a proposer must derive from harnessx.search.proposers.Proposer, not {type(proposer).__name__}")
        self.proposer = proposer or make_proposer(config.run.proposer, meta_model=config.run.meta_model,
                                                  api_base=config.run.meta_api_base)
        self.acceptance = make_acceptance(acceptance) if acceptance is not None else make_acceptance(
            config.run.accept, config.run.accept_options,
            **({"alpha": config.run.alpha} if takes_alpha(config.run.accept) else {}))
        check_settings(self.acceptance, config.run.accept_options)
        self.judge = judge
        self.reporter = reporter or Reporter()
        self.dir = RunDir(Path(config.tracking.runs_dir) / config.run_name)
        self.runner: Runner | None = None  # set by run()
        self.tracker: MlflowTracker | None = None  # set by run() when MLflow is on
        self._given_suite = suite is not None

    # --- configuration and planning ------------------------------------------------------------
    def config_record(self) -> dict[str, Any]:
        """config.json: the parts flattened into one record (its shape predates the parts)."""
        r, b, c = self.config.run, self.config.budget, self.config
        return {"objective": r.objective, "env": r.env, "suite_options": r.suite_options, "model": r.model,
                "api_base": r.api_base,
                "simulated": self.model.simulated, "proposer": self.proposer.name or r.proposer,
                "meta_model": r.meta_model, "accept": self.acceptance.name or r.accept,
                "accept_options": as_json(self.acceptance.options()),
                "alpha": r.alpha, "rounds": b.rounds, "proposals": b.proposals, "epochs": r.epochs, "seeds": r.seeds,
                "sources": r.sources, "task_ids": r.task_ids, "temperature": r.temperature, "top_p": r.top_p,
                **({"reasoning_effort": r.reasoning_effort} if r.reasoning_effort else {}),
                "suite_hash": suite_hash(self.tasks), "search_space": {"name": self.space.name, "digest": self.space.digest,
                                                                        "source": self.space.source},
                "max_rollouts": b.max_rollouts, "max_cost": b.max_cost, "concurrency": c.execution.concurrency,
                "storage": c.tracking.storage, "tracking_uri": absolute_uri(c.tracking.tracking_uri),
                "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}

    def plan(self) -> dict[str, int]:
        """Pre-flight: the most rollouts the search can use (racing and caching only lower it)."""
        per_eval = len(self.objective.tasks(self.tasks)) * len(self.config.seeds)
        looks = self.acceptance.looks(self.config.budget.proposals)  # a rule with a gate judges more, cheaper
        return {"tasks": len(self.objective.tasks(self.tasks)), "seeds": len(self.config.seeds),
                "per_candidate": per_eval, "candidates": 1 + self.config.budget.rounds_limit * looks,
                "rollouts": per_eval * (1 + self.config.budget.rounds_limit * looks)}

    def _rollout_cap(self) -> int:
        """The pre-flight bound is a cap too: --max-rollouts when lower, never more than planned."""
        planned = self.plan()["rollouts"]
        return min(planned, self.config.budget.max_rollouts) if self.config.budget.max_rollouts else planned

    # --- the loop ------------------------------------------------------------------------------
    async def run(self, resume: bool = False) -> SearchResult:
        """Run the search to its last round, its budget or its proposer's end, then certify the claim.

        With `resume`, continue the run directory's checkpoint: finished rounds are kept and paid
        rollouts are reused from the cache. Bad input raises `InputError` before anything is written.
        """
        try:
            return await self._run(resume)
        except Exception:
            self.dir.discard_if_unused()  # failed before its first rollout: a retry must not be refused
            raise
        finally:
            if self.runner is not None:
                await self.runner.aclose()

    async def _run(self, resume: bool) -> SearchResult:
        started = time.monotonic()
        check_stores(self.config.tracking.storage, self.config.tracking.tracking_uri)  # before anything is created
        if not resume:
            check_budget_buys_r0(self.config.budget.max_rollouts, self.plan()["per_candidate"])
        await preflight(self.model)  # a model that cannot answer stops here too
        if self.config.run.meta_model and not self.proposer.offline:  # so does the proposer's meta-model
            api_base = self.config.run.meta_api_base
            await preflight(ModelClient(self.config.run.meta_model, api_base=api_base, api_key="local" if api_base else None))
        checkpoint = self.dir.prepare(self.config_record(), resume)
        self.runner = runner = Runner(self.suite, self.model,
                                      RolloutCache(self.dir.rollouts, shared=shared_cache(self.config.tracking.runs_dir)),
                                      concurrency=self.config.execution.concurrency,
                                      executor=search_executor(self.config, self.suite, self.model, self._given_suite))
        arena = Arena(runner, self.tasks, self.objective, self.config.seeds, judge=self.judge,
                      max_rollouts=self._rollout_cap(), max_cost=self.config.budget.max_cost,
                      order_seed=self.config.run.seed, on_rollout=lambda r: (self.reporter.rollout(r, arena.cost),
                                                                          breaker.observe(r, runner)))
        breaker = CircuitBreaker()
        state = checkpoint or {"round": -1, "curve": [], "spent": {}, "mlflow_parent": None, "stop_reason": None}
        state["stop_reason"] = None  # a resumed search may have a larger budget
        if state.get("done"):  # until this resume finishes, selected.yaml and summary.json are not its result
            state["done"] = False
            self.dir.write_json("checkpoint.json", state)
        arena.spent.update(state["spent"])
        history = self.dir.trim_ledger(state["round"])
        self.acceptance.restore(history)  # a rule with memory rebuilds it from the ledger
        study = open_study(self.config.tracking.storage, self.dir / "optuna.log",
                           self.dir.study_name(self.config.run_name, self.config.tracking.storage), self.objective.name)
        optuna_ledger = OptunaLedger(study, self.space)
        for key, value in {"objective": self.objective.name, "env": self.config.run.env, "model": self.config.run.model,
                           "simulated": self.model.simulated}.items():
            study.set_user_attr(key, value)
        tracker = self._mlflow(state)
        self._replan(arena, state["round"])

        if state["round"] < 0:
            self.reporter.round_started(0)
            r0 = self.space.initial()
            r0.save(self.dir / "r0.yaml")
            judging_from = now()
            evaluation = await arena.evaluate(r0)
            self.reporter.note(self._estimate(evaluation))
            row = self._row(0, 0, Proposal(r0, "", "initial harness (R0)"), None,
                            Verdict(evaluation, "full", accepted=True, reason="initial harness"), arena, None, judging_from)
            self._log([row], [(r0, None, evaluation)], optuna_ledger, tracker)
            history = [row]
            state.update(round=0, incumbent=r0.hash, incumbent_round=0)
            state["curve"].append(self._diagnostics(0, evaluation, accepted=True, best=None))
            self._checkpoint(state, arena)
        incumbent = Harness.load(self.dir / "harnesses" / f"{state['incumbent']}.yaml")
        r0_eval = await arena.evaluate(Harness.load(self.dir / "r0.yaml"))
        inc_eval = await self.acceptance.incumbent_evaluation(incumbent, arena)

        for round_no in range(state["round"] + 1, self.config.budget.rounds_limit + 1):
            asked, short = round_proposals(self.config.budget, self.acceptance, arena, len(self.config.seeds), round_no)
            if not asked:
                state["stop_reason"] = f"budget: {short}"
                self.reporter.note(f"stopping before round {round_no}: {short}")
                break
            if short:
                self.reporter.note(f"round {round_no}: {short}")
            self.reporter.round_started(round_no)
            ctx = RoundContext(round_no, self.objective, self.space, incumbent, inc_eval, tuple(history),
                               runner.trajectory, self.config.run.seed, arena)
            try:  # a proposer that evaluates (gepa) meets the same hard caps as the acceptance rule
                proposals = self.proposer.propose(ctx, self.acceptance.looks(asked))
                dropped = list(self.proposer.dropped)  # drafts the proposer refused, with reasons
                for reason in dropped:
                    self.reporter.note(f"round {round_no}: proposal dropped: {reason}")
                if not proposals:
                    state["stop_reason"] = "the proposer has no new edit" + (f" ({'; '.join(dropped)})" if dropped else "")
                    break
                arena.round = round_no
                judging_from = now()
                verdicts = await self.acceptance.judge(incumbent, [p.harness for p in proposals], arena)
            except (BudgetExhausted, ModelOutage) as exc:
                state["stop_reason"] = f"{'model' if isinstance(exc, ModelOutage) else 'budget'}: {exc}"
                self.reporter.note(f"stopping before round {round_no} finished: {exc}")
                break
            rows = [self._row(round_no, slot, p, incumbent, v, arena, inc_eval, judging_from) for slot, (p, v) in enumerate(zip(proposals, verdicts))]
            self._log(rows, [(p.harness, incumbent, v.evaluation) for p, v in zip(proposals, verdicts)],
                      optuna_ledger, tracker)
            history.extend(rows)
            announce(self.reporter, self.objective, rows, inc_eval)
            winner = next((p.harness for p, v in zip(proposals, verdicts) if v.accepted), None)
            if winner is not None:
                incumbent = winner
                inc_eval = await self.acceptance.incumbent_evaluation(incumbent, arena)
                state.update(incumbent=incumbent.hash, incumbent_round=round_no)
            best = max((v.evaluation for v in verdicts if v.stage == "full"),
                       key=lambda e: self.objective.rate(e.scorecard).value or 0.0, default=None)
            entry = self._diagnostics(round_no, inc_eval, accepted=winner is not None, best=best)
            state["curve"].append(entry)
            if tracker:
                tracker.round(round_no, {f"incumbent_{k}": entry[k]["value"] for k in (*self.headline, "objective")})
            state["round"] = round_no
            self._checkpoint(state, arena)
            self._replan(arena, round_no)
            if state["stop_reason"]:
                break
        # the selected harness on the whole split, like R0 (a rule that moved on part of the split,
        # `window`, leaves fewer tasks here)
        if len(inc_eval.tasks) < len(arena.tasks):
            inc_eval = await arena.evaluate(incumbent)
        optuna_ledger.mark_selected(incumbent.hash, state["incumbent_round"])
        claim = await search_claim(self, r0_eval.harness, incumbent, arena.rollouts, arena.cost)
        study.set_user_attr("claim", claim)
        study.set_user_attr("claim_line", claim_line(claim))  # the dashboard shows attrs as text: the line reads
        return self._finish(state, arena, r0_eval, inc_eval, incumbent, tracker, history, time.monotonic() - started,
                            claim)

    # --- pieces --------------------------------------------------------------------------------
    def _mlflow(self, state: dict[str, Any]) -> MlflowTracker | None:
        uri = absolute_uri(self.config.tracking.tracking_uri)
        if not uri:
            return None
        root = Path(uri.removeprefix("sqlite:///")).parent / "artifacts" if uri.startswith("sqlite:///") else None
        tracker = MlflowTracker(uri, "harnessx-search", root)
        # The parent run's id is on disk from its creation on (mlflow.json), so a search killed before its
        # first checkpoint (during R0) reopens that run on --resume instead of leaving it RUNNING forever.
        state["mlflow_parent"] = open_parent(tracker, self.dir, uri, state.get("mlflow_parent"),
                                             self.config.run_name, self.config_record(), self._tags())
        self.tracker = tracker
        return tracker

    def _tags(self) -> dict[str, str]:
        sim = self.model.simulated
        note = (f"SIMULATED task agent ({self.config.run.model}): pipeline/demo numbers, not a model's result."
                if sim else f"Task agent: {self.model.describe()}")
        return {"harnessx.model": self.config.run.model, "harnessx.simulated": str(sim).lower(),
                "harnessx.objective": self.objective.name, "harnessx.env": self.config.run.env,
                "harnessx.run": self.config.run_name, "mlflow.note.content": note}

    def _replan(self, arena: Arena, last_round: int) -> None:
        per = self.plan()["per_candidate"]
        r0 = per if last_round < 0 else 0
        left = budget_left(self.config.budget, arena)
        if self.config.budget.budgeted and left is not None:  # rounds come from the budget: the budget is the total
            remaining = max(left - r0, 0)
        else:
            remaining = ((self.config.budget.rounds_limit - max(last_round, 0))
                         * self.acceptance.looks(self.config.budget.proposals) * per)
        self.reporter.plan(arena.rollouts + r0 + remaining, arena.rollouts)

    def _row(self, round_no: int, slot: int, proposal: Proposal, parent: Harness | None, verdict: Verdict,
             arena: Arena, inc_eval: Evaluation | None, started: str) -> dict:
        card = verdict.evaluation.scorecard
        judged = judged_on(verdict.evaluation, inc_eval, arena.evaluations_of(proposal.harness), len(arena.tasks),
                           self.objective.value_key)
        objective = self.objective.rate(card)
        return {"round": round_no, "slot": slot, "hash": proposal.harness.hash,
                "parent": parent.hash if parent else None, "edit": proposal.edit, "target": proposal.target,
                "rationale": proposal.rationale, "scorecard": card.to_dict(),
                "objective": {"name": self.objective.name, "k": objective.k, "n": objective.n, "value": objective.value},
                "accepted": verdict.accepted, "stage": verdict.stage, "p_value": verdict.p_value,
                "p_adjusted": verdict.p_adjusted, "ci": list(verdict.ci) if verdict.ci else None,
                "mean_diff": verdict.mean_diff, "strata": verdict.strata, "reason": verdict.reason,
                "undecided": verdict.undecided, "judged": judged, "started": started, "finished": now(),
                "rollouts": len(verdict.evaluation.results),
                "switches": proposal.harness.switches.model_dump(mode="json")}

    def _log(self, rows: list[dict], candidates: list[tuple[Harness, Harness | None, Evaluation]],
             optuna_ledger: OptunaLedger, tracker: MlflowTracker | None) -> None:
        for row, (harness, parent, evaluation) in zip(rows, candidates):
            self.dir.save_harness(harness)
            self.dir.save_scores(harness.hash, evaluation)
            row["mlflow_run_id"] = (tracker.candidate(
                row, harness, parent, evaluation, self._tags(), self._failing(evaluation),
                RolloutBatch(pick(evaluation, self.config.tracking.mlflow_traces), self.runner.trajectory)) if tracker else None)
            row["optuna_trial"] = optuna_ledger.add(row, harness)
        self.dir.append_ledger(rows)

    def _failing(self, evaluation: Evaluation) -> dict[str, str]:
        return {f"{s.failure_mode}-{s.task_id}-seed{s.seed}": text
                for s, text in failing(evaluation, self.runner.trajectory, TRAJECTORIES_PER_CANDIDATE)}

    def _estimate(self, r0: Evaluation) -> str:
        """Tokens and cost of the whole search, extrapolated from R0's rollouts."""
        n = len(r0.results) or 1
        total = self.plan()["rollouts"]
        cost = sum(r.usage.cost_usd for r in r0.results)
        return (f"estimate from R0: {r0.tokens / n:.0f} tokens and ${cost / n:.5f} per rollout; at most "
                f"{total} rollouts = {r0.tokens / n * total / 1e6:.2f}M tokens, ${cost / n * total:.2f}")

    def _diagnostics(self, round_no: int, evaluation: Evaluation, accepted: bool, best: Evaluation | None) -> dict:
        card = evaluation.scorecard
        results = evaluation.results
        return {"round": round_no, "incumbent": evaluation.harness.hash, "accepted": accepted,
                "objective": self.objective.rate(card).to_dict(),
                "best_proposal": self.objective.rate(best.scorecard).to_dict() if best else None,
                **{k: headline_metric(card, k).to_dict() for k in self.headline},
                "failure_modes": dict(card.failure_modes),
                "per_family_relaxed_sa": {f: g["relaxed_sa"].value for f, g in card.per_family.items()},
                "output_tokens": card.output_tokens.to_dict(),
                "steps": sum(r.steps for r in results) / len(results) if results else None}

    def _checkpoint(self, state: dict[str, Any], arena: Arena) -> None:
        state.update(version=CHECKPOINT_VERSION, spent=dict(arena.spent), rollouts=arena.rollouts,
                     cost_usd=arena.cost)
        self.dir.write_json("checkpoint.json", state)

    def _finish(self, state: dict, arena: Arena, r0: Evaluation, selected: Evaluation, incumbent: Harness,
                tracker: MlflowTracker | None, history: list[dict], wall_s: float, claim: dict) -> SearchResult:
        c = self.config
        scores = {k: headline_metric(selected.scorecard, k).to_dict() for k in self.headline}
        provenance = {"search": c.run_name, "round": state["incumbent_round"], "objective": self.objective.name,
                      "objective_value": self.objective.rate(selected.scorecard).to_dict(), "scores": scores,
                      "env": c.run.env, "split": "search", "seeds": c.seeds, "model": c.run.model,
                      "simulated": self.model.simulated, "r0": r0.harness.hash,
                      "claim": {k: v for k, v in claim.items() if k != "exclusions"}}
        chosen = incumbent.renamed(f"{c.run_name}-selected", **provenance)
        chosen.save(self.dir / "selected.yaml")
        summary = {
            "search": c.run_name, "objective": self.objective.name, "env": c.run.env, "model": c.run.model,
            "api_base": c.run.api_base, "simulated": self.model.simulated, "accept": self.acceptance.name,
            "proposer": self.proposer.name,
            "r0": {"hash": r0.harness.hash, "scorecard": r0.scorecard.to_dict()},
            "selected": {"hash": incumbent.hash, "round": state["incumbent_round"],
                         "scorecard": selected.scorecard.to_dict()},
            "curve": state["curve"], "accepted_rounds": [e["round"] for e in state["curve"] if e["accepted"] and e["round"]],
            "rounds_done": state["round"], "rollouts": arena.rollouts, "cost_usd": arena.cost,
            "model_calls": arena.runner.model_calls, "stop_reason": state.get("stop_reason"), "wall_s": round(wall_s, 1),
            "claim": claim, "claim_line": claim_line(claim),
            "note": "search-split scores are selection data, not a claim (optimistic for the selected harness); "
                    "the claim above is the one test of selected vs R0 on a split selection never saw.",
        }
        self.dir.write_json("summary.json", seal(summary))  # its sha256: an edited summary is refused when read
        state["done"] = True
        self._checkpoint(state, arena)
        if tracker:
            tracker.finish(self.dir / "summary.json", self.dir / "selected.yaml",
                           {**{f"r0_{k}": headline_metric(r0.scorecard, k).value for k in self.headline},
                            **{f"selected_{k}": headline_metric(selected.scorecard, k).value for k in self.headline},
                            "rollouts": arena.rollouts, "cost_usd": arena.cost, **claim_metrics(claim)})
        return SearchResult(self.dir.path, r0, selected, summary, history)
