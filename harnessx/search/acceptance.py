"""Acceptance rules: which of a round's proposals, if any, replaces the incumbent.

`greedy` is the paper's rule: every proposal gets a full evaluation and the best one is accepted
if its objective is strictly higher than the incumbent's. With one stochastic rollout per task it
accepts noise often (anchors §5: ~23% of rounds when nothing differs), so `paired` is the default:
challenger and incumbent on the same tasks and seeds, per-task differences, a one-sided paired
test with Holm's correction over the round's proposals, racing (a smoke subset, then half the
tasks) to stop clear losers early, and, for `joint`, a veto on a significant regression in either
stratum. Both record p-values and a bootstrap CI of the mean per-task difference. `sequential`
(harnessx/search/sequential.py) is the adaptive rule: by default it screens the round's proposals
on a fifth of the split and tests only the best one on fresh tasks (harnessx/search/screening.py);
its `halving` design is the anytime-valid betting test with successive halving. `stack`
(harnessx/search/stacking.py) moves to the screen's best proposal unconfirmed and accepts only a
stack of such moves that passes a test at alpha on the tasks the screen did not use.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from harnessx.errors import InputError
from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.search.arena import Arena
from harnessx.search.veto import p_harmed, vetoes
from harnessx.stats import holm, paired_bootstrap_ci, paired_test

RESAMPLES = 2000  # permutation and bootstrap draws: p resolution 0.0005, well below alpha / K


@dataclass
class Verdict:
    """What the rule decided about one proposal, and on what evidence."""

    evaluation: Evaluation
    stage: str                      # smoke / race / full: how far it got
    accepted: bool = False
    mean_diff: float | None = None  # mean per-task difference, challenger − incumbent
    p_value: float | None = None    # one-sided, challenger > incumbent
    p_adjusted: float | None = None
    ci: tuple[float, float] | None = None
    strata: dict[str, dict] = field(default_factory=dict)
    reason: str = ""
    undecided: bool = False         # rejected without evidence against it: the proposer may bring it back
    provisional: bool = False       # the working incumbent moves to it unconfirmed (`stack`): not an accept


@runtime_checkable
class AcceptanceRule(Protocol):
    name: str

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]: ...


@dataclass(frozen=True)
class Paired:
    """Matched tasks and seeds; per-task per-seed mean success compared by a one-sided paired test."""

    per_task: dict[str, float]
    other: dict[str, float]
    strata: dict[str, str]
    abstain: dict[str, tuple[float, float]] = field(default_factory=dict)  # feasible: (challenger, incumbent)

    @classmethod
    def of(cls, challenger: Evaluation, incumbent: Evaluation, value_key: str | None = None) -> "Paired":
        """Per-task values of both on their common tasks (`value_key`: the objective's, None = ASA success),
        and their false abstention where both have one (the `joint` veto, harnessx/search/veto.py)."""
        a, b = challenger.per_task_success(value_key), incumbent.per_task_success(value_key)
        common = sorted(a.keys() & b.keys())
        strata = {t.id: t.stratum for t in challenger.tasks}
        fa, fb = challenger.per_task_success("false_abstention"), incumbent.per_task_success("false_abstention")
        return cls({k: a[k] for k in common}, {k: b[k] for k in common}, {k: strata[k] for k in common},
                   {k: (fa[k], fb[k]) for k in common if k in fa and k in fb})

    def arrays(self, stratum: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        ids = [k for k in self.per_task if stratum is None or self.strata[k] == stratum]
        return np.array([self.per_task[k] for k in ids]), np.array([self.other[k] for k in ids])

    def test(self, stratum: str | None = None, harm: bool = False, method: str = "sign_flip") -> tuple[float, float]:
        """(mean difference, one-sided p) for improvement, or for harm with `harm=True`."""
        a, b = self.arrays(stratum)
        if a.size == 0:
            return 0.0, 1.0
        first, second = (b, a) if harm else (a, b)
        result = paired_test(first, second, method=method, n_resamples=RESAMPLES)
        return float((a - b).mean()), result.p_value

    def ci(self) -> tuple[float, float]:
        a, b = self.arrays()
        _, lo, hi = paired_bootstrap_ci(a, b, n_resamples=RESAMPLES)
        return lo, hi


def _describe(verdict: Verdict, paired: Paired, strata: tuple[str, ...]) -> None:
    verdict.mean_diff, verdict.p_value = paired.test()
    verdict.ci = paired.ci() if paired.per_task else None
    if len(strata) > 1:
        for stratum in strata:
            diff, p_harm = paired.test(stratum, harm=True)
            verdict.strata[stratum] = {"mean_diff": diff, "p_harm": p_harm}


class Greedy:
    """The paper's rule: full evaluation of every proposal; the best one wins if strictly better."""

    name = "greedy"

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        inc = await arena.evaluate(incumbent)
        evals = await asyncio.gather(*(arena.evaluate(p) for p in proposals))
        incumbent_value = arena.objective.rate(inc.scorecard).value or 0.0
        verdicts = []
        for ev in evals:
            verdict = Verdict(ev, "full")
            _describe(verdict, Paired.of(ev, inc, arena.objective.value_key), arena.objective.strata)
            verdicts.append(verdict)
        values = [arena.objective.rate(v.evaluation.scorecard).value or 0.0 for v in verdicts]
        best = int(np.argmax(values)) if values else -1
        for i, (verdict, value) in enumerate(zip(verdicts, values)):
            if i == best and value > incumbent_value:
                verdict.accepted, verdict.reason = True, f"best of round, {value:.3f} > incumbent {incumbent_value:.3f}"
            elif value > incumbent_value:
                verdict.reason = f"{value:.3f} > incumbent {incumbent_value:.3f} but not the round's best"
            else:
                verdict.reason = f"{value:.3f} <= incumbent {incumbent_value:.3f}"
        return verdicts


@dataclass
class PairedRacing:
    """One-sided paired test with Holm over the round, after racing out clear losers.

    Stages: `smoke` tasks, then half the tasks, then all tasks. After each of the first two, a
    proposal is dropped if it crashed (no valid rollout), abstained on every feasible task, or is a
    clear loser (one-sided paired test for harm, p < `drop_p`). Accept the survivor with the
    largest mean gain among those whose Holm-adjusted p is below `alpha`, unless (joint) either
    stratum regresses with p < `alpha`.
    """

    alpha: float = 0.05
    smoke: int = 8
    drop_p: float = 0.25
    method: str = "sign_flip"
    name: str = "paired"

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        inc = await arena.evaluate(incumbent)
        n_all = len(arena.tasks)
        stages = [("smoke", min(self.smoke, n_all)), ("race", max(self.smoke, n_all // 2)), ("full", n_all)]
        verdicts: dict[int, Verdict] = {}
        alive = list(range(len(proposals)))
        for stage, n in stages:
            if not alive:
                break
            evals = await asyncio.gather(*(arena.evaluate(proposals[i], n) for i in alive))
            survivors = []
            for i, ev in zip(alive, evals):
                verdicts[i] = Verdict(ev, stage)
                if stage != "full" and (why := self._drop(stage, ev, Paired.of(ev, inc, arena.objective.value_key))):
                    verdicts[i].reason = why
                else:
                    survivors.append(i)
            alive = survivors
        for i, verdict in verdicts.items():
            _describe(verdict, Paired.of(verdict.evaluation, inc, arena.objective.value_key), arena.objective.strata)
        p_full = [verdicts[i].p_value if i in alive else 1.0 for i in range(len(proposals))]
        adjusted = holm(p_full) if p_full else []
        candidates = []
        for i in alive:
            verdict = verdicts[i]
            verdict.p_adjusted = adjusted[i]
            harmed = vetoes(Paired.of(verdict.evaluation, inc, arena.objective.value_key), arena.objective.strata,
                            p_harmed(self.alpha))
            if verdict.p_adjusted >= self.alpha:
                verdict.undecided = (verdict.mean_diff or 0.0) > 0
                verdict.reason = f"not significant: Holm-adjusted p = {verdict.p_adjusted:.3f} >= {self.alpha}"
            elif harmed:
                verdict.reason = f"significant gain but {'/'.join(harmed)} regresses (p_harm < {self.alpha})"
            else:
                candidates.append(i)
        if candidates:
            best = max(candidates, key=lambda i: (verdicts[i].mean_diff, -verdicts[i].p_adjusted))
            verdicts[best].accepted = True
            verdicts[best].reason = (f"accepted: mean Δ = {verdicts[best].mean_diff:+.3f}, "
                                     f"Holm-adjusted p = {verdicts[best].p_adjusted:.3f} < {self.alpha}")
            for i in candidates:
                if i != best:
                    verdicts[i].reason = "significant, but another proposal gained more"
        return [verdicts[i] for i in range(len(proposals))]

    def _drop(self, stage: str, ev: Evaluation, paired: Paired) -> str:
        card = ev.scorecard
        if card.joint.n == 0:
            return f"{stage}: no valid rollout"
        if card.false_abstention.n and card.false_abstention.k == card.false_abstention.n:
            return f"{stage}: abstained on every feasible task"
        diff, p_harm = paired.test(harm=True, method=self.method)
        if p_harm < self.drop_p:
            return f"raced out at {stage}: mean Δ = {diff:+.3f}, harm p = {p_harm:.3f} < {self.drop_p}"
        return ""


async def incumbent_evaluation(rule: AcceptanceRule, incumbent: Harness, arena: Arena) -> Evaluation:
    """The incumbent's evaluation the proposer sees: the full split, unless the rule evaluates it
    only as far as its challengers go (`sequential`)."""
    own = getattr(rule, "incumbent_evaluation", None)
    return await (own(incumbent, arena) if own else arena.evaluate(incumbent))


SETTLE_STAGE = "stack test"  # ledger stage prefix of a settlement row of `stack` (the loop and restore find them)
ACCEPTANCE = {"greedy": Greedy, "paired": PairedRacing, "sequential": None, "stack": None}  # the last two: lazily
TAKES_ALPHA = ("paired", "sequential", "stack")


def make_acceptance(rule: str | AcceptanceRule, **options) -> AcceptanceRule:
    """A rule object, or its name: `greedy`, `paired`, `sequential` (harnessx/search/sequential.py) or
    `stack` (harnessx/search/stacking.py)."""
    if not isinstance(rule, str):
        return rule
    if rule not in ACCEPTANCE:
        raise InputError("--accept", f"unknown acceptance rule {rule!r}", f"one of {', '.join(ACCEPTANCE)}")
    if rule == "sequential":
        from harnessx.search.sequential import Sequential
        return Sequential(**options)
    if rule == "stack":
        from harnessx.search.stacking import Stacking
        return Stacking(**options)
    return ACCEPTANCE[rule](**options) if rule == "paired" else ACCEPTANCE[rule]()
