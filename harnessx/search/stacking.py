"""`stack`: explore on unconfirmed moves, accept only what a test confirms.

Per round, in the arena's stratified order (blocked and feasible interleaved):

1. **Move.** The round's proposals meet the *working* incumbent on a screening window (a fifth of
   the split, at least 8 tasks). The one with the largest mean per-task difference (ties: the
   proposer's earlier one), if it is ahead there, becomes the working incumbent at once, unconfirmed:
   a *provisional* move, which the ledger records but never counts as an accept. A proposal whose
   harm e-value on the window reaches 1 / drop_p is refuted; the others ahead are undecided.
2. **Settle.** Every `every` rounds, and after the last one, the working incumbent (the stack of
   the edits moved to since the *confirmed* harness) meets the confirmed harness on the tasks the
   window did not use: rungs (the window's size, then doubling) with futility looks that stop it
   when its mean difference is <= `futility` or its harm e-value reaches 1 / drop_p, then a
   one-sided paired sign-flip test at `alpha` with the `joint` veto. Passed: the stack is
   committed, the one accept the ledger counts (its parent is the confirmed harness). Failed: the
   search goes back to the confirmed harness. The window moves on after every test, so the next
   stack is screened on other tasks and the edits of a failed stack meet new evidence if proposed
   again. A round that leaves the confirmed harness in place moves the window on too (that harness
   has every task already), so one lucky draw of its window cannot block every challenger. The
   selected harness is always a confirmed one.

Why: after a first large edit the helpful edits are small (+0.03 to +0.05 in the simulated world),
and a per-round test at alpha on 128 tasks seldom confirms one of them, however well the round's
challenger is chosen (the oracle bound in bench/search_efficiency.py; `harnessx plan`: MDE +0.11 at
rho 0.5). Stacked, several of them can be confirmed at once; each settlement is one test at alpha,
so a copy (or a stack of copies) is committed with probability at most alpha per settlement.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field

import numpy as np

from harnessx.errors import InputError
from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.search.acceptance import SETTLE_STAGE, AcceptanceRule, Paired, Settlement, Verdict, describe
from harnessx.search.arena import Arena
from harnessx.search.screening import confirm_rungs, subset, vetoed_strata
from harnessx.search.evalues import differences, first_rung, max_wealth


@dataclass
class Stacking(AcceptanceRule):
    """Unconfirmed moves on a screening window; a stack of them accepted only by a test at alpha."""

    alpha: float = 0.05
    first: float = 0.2     # the screening window: this share of the split, at least 8 tasks
    every: int = 2         # rounds between settlements (and one after the last round)
    drop_p: float = 0.25   # a harm e-value of 1 / drop_p refutes a proposal or stops a stack
    futility: float = 0.0  # a settlement look stops the stack when its mean difference is <= this
    cap: float = 0.9       # largest bet of the e-values
    name: str = "stack"
    takes_alpha = True
    window: int = 0        # the window is the window-th block of the order (see `restore`)
    confirmed: str | None = None  # hash of the last confirmed harness (None: the first incumbent judged)
    tested: set = field(default_factory=set, repr=False)  # (confirmed, stack) hashes settled so far

    def __post_init__(self) -> None:
        if int(self.every) != self.every or self.every < 1:
            raise InputError("--accept stack", f"every = {self.every!r}", "a whole number of rounds, at least 1")
        if not 0 < self.first < 1:
            raise InputError("--accept stack", f"first = {self.first!r}", "a share of the split between 0 and 1")
        self.every = int(self.every)

    def restore(self, history: list[dict]) -> None:
        """Replay a resumed search's ledger: the confirmed harness, and the window (one block further
        after every settlement and after every round that left the confirmed harness where it was)."""
        self.window, self.confirmed, working = 0, None, None
        self.tested = {(row.get("parent"), row["hash"]) for row in history
                       if str(row.get("stage", "")).startswith(SETTLE_STAGE)}
        for _, rows in itertools.groupby(history, key=lambda row: row["round"]):
            rows = list(rows)
            settled = [r for r in rows if str(r.get("stage", "")).startswith(SETTLE_STAGE)]
            moved = [r for r in rows if r.get("provisional")]
            if rows[0]["round"] == 0:
                self.confirmed = working = rows[0]["hash"]
                continue
            self._advance(working, bool(moved))
            working = moved[0]["hash"] if moved else working
            for row in settled:
                self.window += 1
                self.confirmed = working = row["hash"] if row["accepted"] else self.confirmed

    def _advance(self, working: str | None, moved: bool) -> None:
        if not moved and working == self.confirmed:  # the confirmed harness has every task: a new window is free
            self.window += 1

    async def incumbent_evaluation(self, incumbent: Harness, arena: Arena) -> Evaluation:
        """What the proposer sees of the working incumbent: the tasks it already has (no new rollout;
        the confirmed harness has every task), or the window if it has none."""
        paid = arena.paid_tasks(incumbent)
        if not paid:
            tasks, m = self._order(arena)
            paid = tasks[:m]
        return await arena.evaluate_on(incumbent, paid)

    def _order(self, arena: Arena) -> tuple[list, int]:
        m = first_rung(len(arena.tasks), self.first)
        return arena.rotated(self.window * m), m

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        key, strata = arena.objective.value_key, arena.objective.strata
        self.confirmed = self.confirmed or incumbent.hash
        tasks, m = self._order(arena)
        window, ids = tasks[:m], [t.id for t in tasks[:m]]
        stage = f"screen {m}/{len(arena.tasks)} tasks"
        inc = await arena.evaluate_on(incumbent, window)
        evals = await asyncio.gather(*(arena.evaluate_on(p, window) for p in proposals))
        verdicts, means = [], []
        for proposal, ev in zip(proposals, evals):
            paired = Paired.of(ev, inc, key)
            verdict = Verdict(ev, stage)
            describe(verdict, paired, strata)
            d = differences(paired, ids)
            verdict.mean_diff = float(d.mean()) if d.size else 0.0
            verdict.p_value = verdict.p_adjusted = None  # a screen selects; it tests nothing
            if ev.scorecard.joint.n == 0:
                verdict.reason = f"{stage}: no valid rollout"
            elif (harm := max_wealth(-d, self.cap)) >= 1.0 / self.drop_p:
                verdict.reason = f"dropped at {stage}: mean Δ = {verdict.mean_diff:+.3f}, harm e-value {harm:.1f}"
            elif (self.confirmed, proposal.hash) in self.tested:  # a retest would meet the same tasks again
                verdict.reason = f"not moved to at {stage}: already tested as a stack against the confirmed harness"
            verdicts.append(verdict)
            means.append(verdict.mean_diff if not verdict.reason else -np.inf)
        best = max(range(len(proposals)), key=lambda i: (means[i], -i), default=None)
        for i, verdict in enumerate(verdicts):
            if verdict.reason:
                continue
            verdict.undecided = verdict.mean_diff > 0  # a moved-to edit may come back after a failed stack
            if i == best and means[i] > 0:
                verdict.provisional = True
                verdict.reason = (f"moved to, unconfirmed: mean Δ = {verdict.mean_diff:+.3f} on the {stage}; "
                                  f"tested with its stack against the confirmed harness")
            else:
                verdict.reason = (f"not chosen at {stage}: mean Δ = {verdict.mean_diff:+.3f}"
                                  + (" (no proposal ahead)" if best is None or means[best] <= 0 else
                                     f" (proposal {best} was ahead, {means[best]:+.3f})"))
        self._advance(incumbent.hash, any(v.provisional for v in verdicts))
        return verdicts

    def due(self, round_no: int, final: bool) -> bool:
        return final or round_no % self.every == 0

    async def settle(self, working: Harness, confirmed: Harness, arena: Arena, round_no: int,
                     final: bool) -> Settlement | None:
        """Test the stack (working incumbent) against the confirmed harness, when due and when there is one."""
        if working.hash == confirmed.hash or not self.due(round_no, final):
            return None
        key, strata, n_all = arena.objective.value_key, arena.objective.strata, len(arena.tasks)
        tasks, m = self._order(arena)
        conf_ids = [t.id for t in tasks[m:]]
        self.window += 1  # whatever the outcome, the next stack is screened on the next block
        self.tested.add((confirmed.hash, working.hash))
        verdict = None
        for size in confirm_rungs(m, n_all):
            base, ev = await asyncio.gather(arena.evaluate_on(confirmed, tasks[:size]),
                                            arena.evaluate_on(working, tasks[:size]))
            paired = subset(Paired.of(ev, base, key), conf_ids)
            d = differences(paired, conf_ids)
            verdict = Verdict(ev, f"{SETTLE_STAGE} " + ("full" if size >= n_all else f"{size}/{n_all} tasks"))
            mean, harm = (float(d.mean()) if d.size else 0.0), max_wealth(-d, self.cap)
            if ev.scorecard.joint.n == 0:
                verdict.reason = f"{verdict.stage}: no valid rollout"
            elif size >= n_all:
                self._test(verdict, paired, strata)
            elif harm >= 1.0 / self.drop_p:
                verdict.reason = f"stack dropped at {verdict.stage}: mean Δ = {mean:+.3f}, harm e-value {harm:.1f}"
            elif mean <= self.futility:
                verdict.reason = f"stack stopped at {verdict.stage}: no sign of a gain (mean Δ = {mean:+.3f})"
            else:
                continue
            break
        describe(verdict, paired, strata)  # once, on the last look's tasks (its p is the test's own)
        self.confirmed = working.hash if verdict.accepted else confirmed.hash
        if not verdict.accepted:
            verdict.undecided = (verdict.mean_diff or 0.0) > 0
            verdict.reason += "; back to the confirmed harness"
        return Settlement(working, verdict, working if verdict.accepted else confirmed)

    def _test(self, verdict: Verdict, paired: Paired, strata: tuple[str, ...]) -> None:
        mean, p = paired.test()
        verdict.p_value = verdict.p_adjusted = p
        where = f"{len(paired.per_task)} tasks the window did not use"
        if p >= self.alpha:
            verdict.reason = f"stack not significant: mean Δ = {mean:+.3f} on {where}, p = {p:.3f} >= {self.alpha:g}"
        elif vetoed := vetoed_strata(paired, strata, self.alpha):
            verdict.reason = f"stack gains but {'/'.join(vetoed)} regresses (p_harm < {self.alpha:g})"
        else:
            verdict.accepted = True
            verdict.reason = f"stack committed: mean Δ = {mean:+.3f} on {where}, one-sided p = {p:.4f} < {self.alpha:g}"
