"""GEPA as a search strategy: `gepa.optimize` driven through a HarnessX adapter.

The adapter evaluates a GEPA candidate (a dict of component texts on top of a base harness's
switches) through the search's arena, so GEPA's rollouts share the rollout cache and the budget,
and a candidate GEPA evaluated on the full split costs nothing to re-judge. Reflection uses the
meta-model when one is given (`reflection_lm`); offline, `propose_new_texts` swaps in the clause of
the component's library that addresses the minibatch's most frequent failure mode.

`GepaProposer` (`--proposer gepa`) runs one GEPA budget per round from the incumbent and hands the
best new candidates to the acceptance rule; `optimize_with_gepa` runs GEPA alone (benchmarks).
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gepa
from gepa.core.adapter import EvaluationBatch

from harnessx.errors import HarnessXError, ModelCallError
from harnessx.evaluation import Evaluation
from harnessx.models.client import ModelClient
from harnessx.models.quiet import drained
from harnessx.harness import Harness
from harnessx.search.arena import Arena
from harnessx.search.proposers.base import Proposal, Proposer, RoundContext
from harnessx.search.traces import render_trajectory
from harnessx.search.space import SearchSpace, enable
from harnessx.tasks import Task

MINIBATCH = 8


class _Quiet:
    """gepa's logger protocol, discarding its per-iteration chatter (the ledger records the outcome)."""

    def log(self, message: str) -> None:
        pass


class HarnessAdapter:
    """gepa's GEPAAdapter for HarnessX: DataInst = Task, score = per-task success (strict SA or solve)."""

    def __init__(self, arena: Arena, base: Harness, space: SearchSpace, offline: bool, seed: int = 0):
        self.arena, self.base, self.space = arena, base, space
        self.rng = random.Random(seed)
        self.propose_new_texts = self._propose if offline else None

    def harness(self, candidate: dict[str, str]) -> Harness:
        harness = self.base
        for component, text in candidate.items():
            harness = enable(harness.with_component(component, text), component)
        return harness

    def evaluate(self, batch: list[Task], candidate: dict[str, str], capture_traces: bool = False) -> EvaluationBatch:
        evaluation = asyncio.run(drained(self.arena.evaluate_on(self.harness(candidate), list(batch))))
        scores = batch_scores(evaluation, batch, self.arena.objective.value_key)
        traces = None
        if capture_traces:
            first = {}
            for score, result in zip(evaluation.scores, evaluation.results):
                first.setdefault(score.task_id, (score, result))
            traces = [{"task": t.instruction, "failure_mode": first[t.id][0].failure_mode,
                       "text": render_trajectory(self.arena.runner.trajectory(first[t.id][1]))} for t in batch]
        valid = evaluation.per_task_success(self.arena.objective.value_key)
        return EvaluationBatch(outputs=[{"task": t.id, "success": s, "excluded": t.id not in valid}
                                        for t, s in zip(batch, scores)], scores=scores,
                               trajectories=traces, objective_scores=[{t.stratum: s} for t, s in zip(batch, scores)],
                               num_metric_calls=len(batch) * len(self.arena.seeds))

    def make_reflective_dataset(self, candidate: dict[str, str], eval_batch: EvaluationBatch,
                                components_to_update: list[str]) -> dict[str, list[dict[str, Any]]]:
        records = [{"Inputs": trace["task"], "Generated Outputs": trace["text"],
                    "Feedback": f"score {score:.2f}" + (f"; failure mode: {trace['failure_mode']}"
                                                       if trace["failure_mode"] else "")}
                   for trace, score in zip(eval_batch.trajectories or [], eval_batch.scores)]
        return {component: records for component in components_to_update}

    def _propose(self, candidate: dict[str, str], reflective_dataset: dict[str, list[dict[str, Any]]],
                 components_to_update: list[str]) -> dict[str, str]:
        harness = self.harness(candidate)
        out = {}
        for component in components_to_update:
            modes = Counter(r["Feedback"].split("failure mode: ")[1] for r in reflective_dataset.get(component, [])
                            if "failure mode: " in r["Feedback"])
            libraries = sorted((lib for lib in self.space.libraries.values() if lib.component == component),
                               key=lambda lib: -sum(modes[m] for m in lib.addresses))
            out[component] = candidate[component]
            for library in libraries:
                held = library.current(harness)
                fresh = [c for c in library.clauses if held is None or c.id != held.id]
                if fresh:
                    out[component] = library.apply(harness, self.rng.choice(fresh)).text(component)
                    break
        return out


def batch_scores(evaluation: Evaluation, batch: list[Task], value_key: str | None) -> list[float]:
    """GEPA's per-task scores: the search objective's per-task value. GEPA needs a number for every
    task, so a task with no valid rollout (an environment or model failure) gets the mean of the
    batch's valid tasks: it moves neither a minibatch comparison nor a valset mean, where a 0 would
    score the failure as the agent's. A batch with no valid task at all is an error naming why."""
    per_task = evaluation.per_task_success(value_key)
    valid = [per_task[t.id] for t in batch if t.id in per_task]
    if not valid:
        why = sorted({f"{s.task_id}: {s.exclusion}" for s in evaluation.scores if not s.valid})
        raise HarnessXError(f"GEPA's batch of {len(batch)} tasks has no valid rollout ({'; '.join(why[:5])}"
                            f"{' …' if len(why) > 5 else ''}); nothing to score a candidate on")
    fill = sum(valid) / len(valid)
    return [per_task.get(t.id, fill) for t in batch]


def optimize_with_gepa(arena: Arena, start: Harness, space: SearchSpace, budget: int,
                       reflection_lm: str | ReflectionModel | None = None, seed: int = 0,
                       adapter: HarnessAdapter | None = None) -> tuple[gepa.GEPAResult, list[Harness]]:
    """Run gepa.optimize from `start` with at most about `budget` rollouts (GEPA checks its budget
    between iterations); returns the result and its candidates as harnesses. `adapter` replaces the
    default one (bench/search_null.py gives GEPA a proposer of copies)."""
    components = sorted({lib.component for lib in space.libraries.values()}
                        | {c for c in start.components if reflection_lm})
    adapter = adapter or HarnessAdapter(arena, start, space, offline=reflection_lm is None, seed=seed)

    def run() -> gepa.GEPAResult:
        return gepa.optimize(seed_candidate={c: start.text(c) for c in components}, trainset=arena.tasks,
                             valset=arena.tasks, adapter=adapter, reflection_lm=reflection_lm,
                             max_metric_calls=budget, reflection_minibatch_size=MINIBATCH, seed=seed,
                             display_progress_bar=False, raise_on_exception=True, logger=_Quiet())

    with ThreadPoolExecutor(1) as pool:  # GEPA is synchronous; its adapter runs its own event loops
        result = pool.submit(run).result()
    return result, [adapter.harness(c) for c in result.candidates]


class ReflectionModel:
    """GEPA's reflection LM on the meta-model, through HarnessX's client so that `--meta-api-base` is
    honoured and a failure is classified. GEPA only logs a failed reflection and carries on without a
    proposal; this keeps the last failure so the proposer can stop with its reason."""

    def __init__(self, model: str, api_base: str | None = None):
        self.client = ModelClient(model, api_base=api_base, api_key="local" if api_base else None, temperature=1.0)
        self.failure: ModelCallError | None = None

    def __call__(self, prompt: str | list[dict[str, Any]]) -> str:
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        try:
            return asyncio.run(drained(self.client.complete(messages))).text or ""
        except ModelCallError as exc:
            self.failure = exc
            raise


class GepaProposer(Proposer):
    """Each round: GEPA from the incumbent with one round's evaluation budget; its best new candidates
    (by GEPA's valset score) become the round's proposals."""

    name = "gepa"

    def __init__(self, meta_model: str | None = None, api_base: str | None = None):
        self.meta_model, self.api_base = meta_model, api_base

    @classmethod
    def from_options(cls, meta_model: str | None = None, api_base: str | None = None) -> GepaProposer:
        return cls(meta_model, api_base=api_base)

    def propose(self, ctx: RoundContext, k: int) -> list[Proposal]:
        if ctx.arena is None:
            raise ValueError("the gepa proposer needs the search's arena")
        budget = k * len(ctx.arena.tasks) * len(ctx.arena.seeds)
        reflection = ReflectionModel(self.meta_model, self.api_base) if self.meta_model else None
        result, harnesses = optimize_with_gepa(ctx.arena, ctx.incumbent, ctx.space, budget, reflection,
                                               seed=ctx.seed * 1000 + ctx.round)
        seen = ctx.seen_hashes() | {ctx.incumbent.hash}
        ranked = sorted(range(1, len(harnesses)), key=lambda i: -result.val_aggregate_scores[i])
        out: list[Proposal] = []
        for i in ranked:
            harness = harnesses[i]
            if harness.hash in seen:
                continue
            seen.add(harness.hash)
            edit = f"gepa@{harness.hash[:10]}"
            out.append(Proposal(harness.renamed(f"R{ctx.round}", edit=edit), edit,
                                f"GEPA candidate {i} (parent {result.parents[i]}), valset score "
                                f"{result.val_aggregate_scores[i]:.3f}", "gepa"))
            if len(out) == k:
                break
        if not out and reflection is not None and reflection.failure is not None:
            failure = reflection.failure  # not "no new edit": the meta-model could not answer
            raise ModelCallError(f"meta-model {self.meta_model!r} (base URL {self.api_base or 'the provider default'}) "
                                 f"failed in GEPA's reflection: {failure}", kind=failure.kind, detail=failure.detail)
        return out
