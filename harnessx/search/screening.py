"""`sequential`'s screen-then-confirm design: pick one challenger on a screening set, test it on fresh tasks.

Per round, in the arena's stratified order (blocked and feasible interleaved):

1. **Screen.** Every proposal meets the incumbent on the first `m` tasks (a fifth of the split, at
   least 8); with `rotate`, round r's window starts (r - 1) * m tasks into the order instead, so
   successive rounds screen on different tasks. The one with the largest mean per-task difference
   (ties: the proposer's earlier one) is the round's only challenger; if no proposal is ahead
   there, the round stops (the others are undecided when ahead, refuted only by a clear harm
   e-value). The screening tasks only select: they never enter the test, so selecting the best
   of K costs no multiplicity correction.
2. **Confirm.** The challenger buys the remaining tasks in rungs (m, then doubling). After each
   rung a futility look stops it when its mean difference on the confirmation tasks is <= 0 or its
   harm e-value reaches 1 / drop_p (stopping early can only lower the chance of accepting, so the
   looks cost no alpha). On the whole confirmation set, a one-sided paired sign-flip test at level
   `alpha` (one challenger per round: no Bonferroni over K), with the `joint` veto when a stratum's
   harm test has p < alpha. Optionally (`early`) a betting e-value crossing 2 / alpha at a look
   accepts at once, and the final test then runs at alpha / 2 (the two share alpha).
3. **Extra seeds.** While the challenger is promising but undecided (p below `promising`), each
   extra seed evaluates it and the incumbent again on the confirmation tasks only (never the
   screen's, at any seed) and adds one more test look on all samples so far; the looks share alpha.

Why: under real rollout noise (harnessx/sim/pairing.py) an anytime-valid test at alpha / K over the
whole split has little power on a 48-task split; this spends the round's error budget on the one
proposal most likely to win and the rollouts on tasks that can still change the decision.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Protocol

import numpy as np

from harnessx.harness import Harness
from harnessx.search.acceptance import Paired, Verdict, describe
from harnessx.search.veto import p_harmed, vetoes
from harnessx.search.arena import Arena
from harnessx.search.evalues import differences, max_wealth


class ScreenSettings(Protocol):
    """What the screen reads of its rule (harnessx/search/sequential.py's `Sequential`)."""

    alpha: float
    cap: float
    drop_p: float
    early: bool
    futility: float
    extra_seeds: int
    promising: float
    rotate: bool
    tested: set

    def screen_size(self, n_all: int, k: int) -> int: ...

    def rungs(self, n_all: int, paid: int) -> list[int]: ...


def subset(paired: Paired, ids: list[str]) -> Paired:
    keep = [t for t in ids if t in paired.per_task]
    return replace(paired, per_task={t: paired.per_task[t] for t in keep}, other={t: paired.other[t] for t in keep},
                   strata={t: paired.strata[t] for t in keep},
                   abstain={t: paired.abstain[t] for t in keep if t in paired.abstain})


def confirm_rungs(m: int, n_all: int) -> list[int]:
    """Prefix sizes at which the challenger is looked at: m + m, then doubling, up to the split."""
    sizes, c = [], m
    while m + c < n_all:
        sizes.append(m + c)
        c *= 2
    return sizes + [n_all]


async def judge_screened(rule: ScreenSettings, incumbent: Harness, proposals: list[Harness],
                         arena: Arena) -> list[Verdict]:
    n_all, key, strata = len(arena.tasks), arena.objective.value_key, arena.objective.strata
    m = rule.screen_size(n_all, len(proposals))
    tasks = arena.rotated(max(arena.round - 1, 0) * m) if rule.rotate and m else arena.tasks
    order = [t.id for t in tasks]
    verdicts: dict[int, Verdict] = {}
    chosen = 0
    if m:
        inc = await arena.evaluate_on(incumbent, tasks[:m])
        evals = await asyncio.gather(*(arena.evaluate_on(p, tasks[:m]) for p in proposals))
        means = {}
        for i, ev in enumerate(evals):
            d = differences(Paired.of(ev, inc, key), order[:m])
            verdicts[i] = Verdict(ev, f"screen {m}/{n_all} tasks", mean_diff=float(d.mean()) if d.size else 0.0)
            means[i] = verdicts[i].mean_diff if ev.scorecard.joint.n else -np.inf
        # a proposal already confirmed against this incumbent would meet the same tasks again: its
        # evidence cannot change, so it is not chosen again (another proposal gets the round)
        fresh = [i for i in means if (incumbent.hash, proposals[i].hash) not in rule.tested] or list(means)
        chosen = max(fresh, key=lambda i: (means[i], -i))
        for i, verdict in verdicts.items():
            harm = max_wealth(-differences(Paired.of(verdict.evaluation, inc, key), order[:m]), rule.cap)
            if verdict.evaluation.scorecard.joint.n == 0:
                verdict.reason = f"{verdict.stage}: no valid rollout"
            elif harm >= 1.0 / rule.drop_p:
                verdict.reason = f"dropped at {verdict.stage}: mean Δ = {verdict.mean_diff:+.3f}, harm e-value {harm:.1f}"
            elif i != chosen or means[i] <= 0:
                verdict.undecided = verdict.mean_diff > 0
                verdict.reason = (f"not chosen at {verdict.stage}: mean Δ = {verdict.mean_diff:+.3f}"
                                  + (" (no proposal ahead)" if means[chosen] <= 0 else
                                     " (already confirmed against this incumbent)" if i not in fresh else
                                     f" (proposal {chosen} was ahead, {means[chosen]:+.3f})"))
        if means[chosen] <= 0 or verdicts[chosen].reason:
            return await _finish(verdicts, incumbent, arena, key, strata, len(proposals), tasks)
    challenger, conf_ids = proposals[chosen], order[m:]
    rule.tested.add((incumbent.hash, challenger.hash))
    for size in confirm_rungs(m, n_all) if m else rule.rungs(n_all, 0):
        inc, ev = await asyncio.gather(arena.evaluate_on(incumbent, tasks[:size]),
                                       arena.evaluate_on(challenger, tasks[:size]))
        paired = subset(Paired.of(ev, inc, key), conf_ids)
        d = differences(paired, conf_ids)
        verdict = verdicts[chosen] = Verdict(ev, "full" if size >= n_all else f"{size}/{n_all} tasks")
        verdict.mean_diff = float(d.mean()) if d.size else 0.0
        harm, gain = max_wealth(-d, rule.cap), max_wealth(d, rule.cap)
        if ev.scorecard.joint.n == 0:
            verdict.reason = f"{verdict.stage}: no valid rollout"
        elif rule.early and gain >= 2.0 / rule.alpha and not vetoed_strata(paired, strata, rule.alpha):
            verdict.accepted, verdict.p_value = True, min(1.0, 1.0 / gain)
            verdict.reason = (f"accepted at {verdict.stage} (confirmation e-value {gain:.1f} >= {2 / rule.alpha:.0f}): "
                              f"mean Δ = {verdict.mean_diff:+.3f} on {d.size} fresh tasks")
        elif size >= n_all:
            await _test(rule, verdict, paired, incumbent, challenger, arena, tasks[m:])
        elif harm >= 1.0 / rule.drop_p:
            verdict.reason = f"dropped at {verdict.stage}: mean Δ = {verdict.mean_diff:+.3f}, harm e-value {harm:.1f}"
        elif verdict.mean_diff <= rule.futility:
            verdict.reason = (f"stopped at {verdict.stage}: no sign of a gain on the confirmation tasks "
                              f"(mean Δ = {verdict.mean_diff:+.3f})")
        else:
            continue
        break
    return await _finish(verdicts, incumbent, arena, key, strata, len(proposals), tasks)


def vetoed_strata(paired: Paired, strata: tuple[str, ...], alpha: float) -> list[str]:
    """The strata whose one-sided harm test has p < alpha, and a false-abstention rise at p < alpha
    (the `joint` veto, harnessx/search/veto.py; none for one stratum)."""
    return vetoes(paired, strata, p_harmed(alpha))


def _merge(a: Paired, b: Paired, tag: str) -> Paired:
    """Samples of both (b's keyed `task@tag`): the unit of the test is a (task, seed) pair."""
    return Paired({**a.per_task, **{f"{t}@{tag}": v for t, v in b.per_task.items()}},
                  {**a.other, **{f"{t}@{tag}": v for t, v in b.other.items()}},
                  {**a.strata, **{f"{t}@{tag}": v for t, v in b.strata.items()}},
                  {**a.abstain, **{f"{t}@{tag}": v for t, v in b.abstain.items()}})


async def _test(rule: ScreenSettings, verdict: Verdict, paired: Paired, incumbent: Harness, challenger: Harness,
                arena: Arena, conf: list) -> None:
    """The test looks: the confirmation tasks, then (while promising) each extra seed on the same
    confirmation tasks `conf`, a one-sided sign-flip test at alpha / looks on all samples so far
    (Bonferroni over the looks). The screen's tasks never enter the test, at any seed: the challenger
    was chosen for its lead there, so a new seed on them would test the edit where it was selected."""
    key, strata = arena.objective.value_key, arena.objective.strata
    looks = 1 + int(rule.extra_seeds)  # test looks: the split's confirmation tasks, then each extra seed
    level = rule.alpha / looks / (2 if rule.early else 1)
    for look in range(looks):
        if look:
            seed = arena.seeds[-1] + look
            inc, ev = await asyncio.gather(arena.evaluate_on(incumbent, conf, [seed]),
                                           arena.evaluate_on(challenger, conf, [seed]))
            paired = _merge(paired, Paired.of(ev, inc, key), str(seed))
        mean, p = paired.test()
        verdict.mean_diff, verdict.p_value, verdict.p_adjusted = mean, p, min(1.0, p * looks)
        n, where = len(paired.per_task), f"{len(paired.per_task)} fresh (task, seed) samples" + (
            f", look {look + 1}/{looks}" if looks > 1 else "")
        vetoed = vetoed_strata(paired, strata, rule.alpha)
        if p < level and not vetoed:
            verdict.accepted = True
            verdict.reason = (f"accepted: mean Δ = {mean:+.3f} on {where}, one-sided p = {p:.4f} < {level:g}")
            return
        if p < level:
            verdict.reason = f"significant gain but {'/'.join(vetoed)} regresses (p_harm < {rule.alpha})"
            return
        verdict.undecided = mean > 0
        verdict.reason = f"not significant on {where}: p = {p:.3f} >= {level:g}"
        if mean <= rule.futility or p >= rule.promising or n == 0:
            return


async def _finish(verdicts: dict[int, Verdict], incumbent: Harness, arena: Arena, key, strata, k: int,
                  tasks: list) -> list[Verdict]:
    """Describe every verdict on its own tasks (mean, bootstrap CI, strata), keeping the test's p."""
    inc = await arena.evaluate_on(incumbent, tasks[:max(len(v.evaluation.tasks) for v in verdicts.values())])
    for verdict in verdicts.values():
        p_value, p_adjusted, mean = verdict.p_value, verdict.p_adjusted, verdict.mean_diff
        describe(verdict, Paired.of(verdict.evaluation, inc, key), strata)
        if p_value is not None:  # the test's own p (confirmation tasks only); screening verdicts keep none
            verdict.p_value, verdict.p_adjusted, verdict.mean_diff = p_value, p_adjusted, mean
    return [verdicts[i] for i in range(k)]
