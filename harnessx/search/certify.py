"""The certified claim: the selected harness against R0, once, on a split selection never saw.

A search moves on the search split; what it *claims* ("the selected harness beats R0 by X") is
tested here, at the end, on the held-out split by default (or another confirmation split, or not at
all with `none`). Both harnesses run on the same tasks and seeds (the search's seeds, or
`--certify-epochs` of them) through the search's runner, so the rollout cache serves every rollout
already paid: a resumed search completes its claim without paying twice, and `harnessx compare` on
the same split and seeds reads the same rollouts.

Figures (every one over the (task, seed) pairs valid for both harnesses): R0's and the selected
harness's mean objective value, their difference, and the one-sided sign-flip test of the per-task
mean differences (the paired test every acceptance rule uses, exact up to 13 tasks) with the CI at
level 1 − 2·alpha that inverts it: its lower bound is above zero exactly when p <= alpha, so the
interval and the verdict never disagree (a percentile bootstrap did, with few discordant tasks: a
+6.1 pp lower bound at p 0.064). The claim is *certified* when p <= alpha; otherwise *not
certified*. A selection equal to R0 is "not certified (selection is R0)" without a rollout.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from harnessx.agent.result import RolloutResult
from harnessx.agent.runner import Runner
from harnessx.agent.sampling import epoch_seeds
from harnessx.errors import InputError
from harnessx.evaluation import Evaluation, evaluate
from harnessx.formatting.claim import claim_line as claim_line, claim_metrics as claim_metrics, p_text  # re-exported: callers name them here
from harnessx.harness import Harness
from harnessx.scoring import Judge
from harnessx.scoring.objective import Objective
from harnessx.stats import sign_flip_ci
from harnessx.tasks import Task

CLAIM_FILE = "claim.json"
DEFAULT_SPLIT = "heldout"
RESAMPLES = 10_000  # sign-flip draws (p resolution 1e-4), seeded; exact below 14 tasks
TEST = "one-sided sign-flip permutation test of the per-task mean differences (selected − R0)"


@dataclass(frozen=True)
class CertifyConfig:
    """Where and how the claim is tested: `split` None = not run; `epochs` None = the search's seeds."""

    split: str | None = DEFAULT_SPLIT
    epochs: int | None = None

    @classmethod
    def from_options(cls, split: str, epochs: int | None) -> CertifyConfig:
        """The CLI's --certify-split NAME|none and --certify-epochs N."""
        if split == "search":
            raise InputError("--certify-split", "'search' is the split selection used", "heldout, independent, "
                             "another split of the suite that the search never saw, or none")
        if epochs is not None and epochs < 1:
            raise InputError("--certify-epochs", f"got {epochs}", "an integer >= 1")
        return cls(None if split == "none" else split, epochs)

    def seeds(self, search_seed: int, search_seeds: list[int]) -> list[int]:
        return list(search_seeds) if self.epochs is None else epoch_seeds(search_seed, self.epochs)

    def tasks(self, suite, objective: Objective) -> tuple[list[Task], str | None]:
        """The claim's tasks, or ([], why it cannot run). A split the user named must have tasks of the
        objective's strata (one-line error); the default held-out split may be absent (recorded)."""
        if self.split is None:
            return [], "not run (--certify-split none)"
        tasks = objective.tasks(suite.tasks(self.split))
        if tasks:
            return tasks, None
        why = f"split {self.split!r} of suite {suite.name} has no tasks of objective {objective.name}'s strata"
        if self.split != DEFAULT_SPLIT:
            raise InputError("--certify-split", why, "a split of the suite with such tasks (e.g. heldout), or none")
        return [], f"not run ({why})"


@dataclass
class ClaimRun:
    """What the claim needs from the search that ran it."""

    runner: Runner
    objective: Objective
    tasks: list[Task]
    seeds: list[int]
    alpha: float
    judge: Judge | None = None
    progress: Callable[[RolloutResult], None] | None = None


def not_run(split: str | None, objective: Objective, alpha: float, why: str, **extra) -> dict:
    return {"status": "not run", "certified": False, "reason": why, "split": split, "objective": objective.name,
            "alpha": alpha, "rollouts": 0, **extra}


async def certify(run: ClaimRun, split: str, r0: Harness, selected: Harness) -> dict:
    """The claim's record (claim.json): see the module docstring."""
    base = {"split": split, "objective": run.objective.name, "alpha": run.alpha, "seeds": list(run.seeds),
            "n_tasks": len(run.tasks), "r0_hash": r0.hash, "selected_hash": selected.hash, "test": TEST}
    if r0.hash == selected.hash:
        return {**base, "status": "not certified", "certified": False, "rollouts": 0,
                "reason": "not certified (selection is R0): no proposal was accepted, nothing to claim"}
    first, second = await asyncio.gather(*(evaluate(run.runner, h, run.tasks, run.seeds, run.judge, progress=run.progress)
                                           for h in (r0, selected)))
    results = first.results + second.results
    figures = paired_figures(run.objective, first, second, run.alpha)
    certified = figures["p_value"] is not None and figures["p_value"] <= run.alpha
    if figures["valid_n"] == 0:
        reason = "not certified: no (task, seed) pair is valid for both harnesses"
    else:
        reason = (f"{'certified' if certified else 'not certified'}: one-sided p {p_text(figures['p_value'])} "
                  f"{'<=' if certified else '>'} alpha {run.alpha:g}")
    return {**base, **figures, "status": "certified" if certified else "not certified", "certified": certified,
            "reason": reason, "rollouts": len(results), "paid": sum(not r.cached for r in results),
            "cost_usd": sum(r.usage.cost_usd for r in results if not r.cached)}


def paired_figures(objective: Objective, r0: Evaluation, selected: Evaluation, alpha: float) -> dict:
    """Means, difference, CI and one-sided p over the (task, seed) pairs valid for both harnesses."""
    other = {(s.task_id, s.seed): objective.trial_value(s) for s in r0.scores}
    a, b, clusters, by_task = [], [], [], defaultdict(list)
    for score in selected.scores:
        x, y = objective.trial_value(score), other.get((score.task_id, score.seed))
        if x is not None and y is not None:
            a.append(float(x))
            b.append(float(y))
            clusters.append(score.source_id)
            by_task[score.task_id].append((float(x), float(y)))
    exclusions = [{"harness": role, **e} for role, ev in (("r0", r0), ("selected", selected)) for e in ev.exclusions]
    level = 1 - 2 * min(alpha, 0.25)
    out = {"n_pairs": len(selected.scores), "valid_n": len(a), "n_sources": len(set(clusters)),
           "valid_tasks": len(by_task), "excluded_pairs": len(selected.scores) - len(a), "exclusions": exclusions,
           "unit": "pp" if objective.value_key is None else "value", "ci_level": level,
           "r0_score": None, "selected_score": None, "difference": None, "ci": None, "p_value": None}
    if not a:
        return out
    means = [(sum(x for x, _ in p) / len(p), sum(y for _, y in p) / len(p)) for p in by_task.values()]
    test = sign_flip_ci([x - y for x, y in means], level, _range(objective, a + b), n_resamples=RESAMPLES, seed=0)
    diff = sum(a) / len(a) - sum(b) / len(b)
    return {**out, "r0_score": sum(b) / len(b), "selected_score": sum(a) / len(a), "difference": diff,
            "ci": [test.low, test.high], "p_value": test.p_value}


def _range(objective: Objective, values: list[float]) -> tuple[float, float]:
    """What a mean difference can be: ±1 for a rate; for a benchmark's value, ± the values' span."""
    span = 1.0 if objective.value_key is None else max(values) - min(values)
    return -span, span


async def search_claim(search, r0: Harness, selected: Harness, done: int, spent_usd: float) -> dict:
    """A search's claim (`search` is a harnessx.search.loop.Search after its loop): run, note, write
    claim.json. `done` and `spent_usd` are the search's rollouts and cost, for the progress bar."""
    config, reporter = search.config, search.reporter
    tasks, why = search.certify.tasks(search.suite, search.objective)
    if why:
        claim = not_run(search.certify.split, search.objective, config.run.alpha, why, r0_hash=r0.hash,
                        selected_hash=selected.hash)
    else:
        seeds = search.certify.seeds(config.run.seed, config.seeds)
        cost = [spent_usd]

        def progress(result: RolloutResult) -> None:
            cost[0] += 0.0 if result.cached else result.usage.cost_usd
            reporter.rollout(result, cost[0])

        if r0.hash != selected.hash:
            reporter.claim(2 * len(tasks) * len(seeds), done)
            reporter.note(f"certifying the claim: selected vs R0 on the {search.certify.split} split, "
                          f"{len(tasks)} tasks x {len(seeds)} seed(s) each (rollouts already paid are reused)")
        run = ClaimRun(search.runner, search.objective, tasks, seeds, config.run.alpha, search.judge, progress)
        claim = await certify(run, search.certify.split, r0, selected)
    search.dir.write_json(CLAIM_FILE, claim)
    if search.tracker is not None:  # tags, not params: a resumed search may certify on other seeds
        for key, value in (("harnessx.claim", claim["status"]), ("harnessx.claim_split", claim["split"]),
                           ("harnessx.claim_objective", claim["objective"])):
            search.tracker.client.set_tag(search.tracker.parent_id, key, str(value))
    return claim
