"""`sequential`: adaptive paired acceptance, in two designs (`design`).

`screen` (default; harnessx/search/screening.py): the round's proposals meet the incumbent on a
screening fifth of the split, only the best one is tested, on the remaining (fresh) tasks, by a
one-sided paired sign-flip test at alpha (one challenger: no Bonferroni over K), with futility
looks that stop it early and, while it is promising but undecided, one extra seed on each of the
fresh tasks (a second test look; the looks share alpha). Built for real rollout noise
(harnessx/sim/pairing.py).

`halving` (the earlier design): per round, every proposal meets the incumbent on the same tasks
and seeds, in the arena's stratified order (blocked and feasible interleaved, so every prefix is
a set of pairs). Evidence grows in rungs (a fifth of the split, then doubling, up to the split);
after each rung:

- the per-task differences d_i = challenger − incumbent (the objective's value, in [-1, 1]) feed
  a betting martingale K_t = prod(1 + lambda_i d_i) with a predictable, Kelly-style bet
  (lambda_i from the earlier differences only). Under H0: E[d] <= 0 it is a nonnegative
  supermartingale, so by Ville's inequality P(sup_t K_t >= K / alpha) <= alpha / K for every
  proposal, however often the rule looks (Waudby-Smith & Ramdas 2023, betting confidence
  sequences). Crossing K / alpha (Bonferroni over the round's K proposals) accepts at once, unless
  a stratum's own harm martingale crosses 1 / alpha (a significant regression, `joint` veto);
- the same martingale on -d crossing 1 / drop_p drops a clear loser (refuted: never re-proposed);
- futility: a survivor with no sign of a gain (mean difference <= 0) after its first rung stops
  (a power cost only: stopping never accepts anything);
- successive halving: only the better half (by wealth) of the survivors buys the next rung, so
  most proposals are cut after a few tasks (TRIPLE-style best-arm identification); the cut ones
  with a positive running mean are *undecided*, not refuted, and may come back;
- the incumbent is evaluated only as far as its challengers go (rollouts it already has are
  reused; the arena never pays twice), and a proposal that comes back resumes from the evidence
  it already paid for (cap = what it has + `max_share` of the split).
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field

from harnessx.errors import InputError
from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.search.acceptance import AcceptanceRule, Paired, Verdict, describe
from harnessx.search.veto import vetoes
from harnessx.search.arena import Arena
from harnessx.search.evalues import differences, first_rung, max_wealth
from harnessx.search.screening import judge_screened


@dataclass
class Sequential(AcceptanceRule):
    """Adaptive paired acceptance: betting e-process, early accept/drop, successive halving."""

    alpha: float = 0.05
    drop_p: float = 0.25     # a harm martingale at 1 / drop_p drops a proposal as a clear loser
    first: float = 0.2       # share of the split in the first rung (at least 8 tasks), then doubling
    max_share: float = 1.0   # new tasks a proposal may buy per visit, as a share of the split
    keep: float = 0.5        # share of survivors (rounded down, at least one) that buys the next rung
    cap: float = 0.9         # largest bet
    design: str = "screen"   # screen: screen-then-confirm (harnessx/search/screening.py); halving: the above
    early: bool = False      # screen: a confirmation e-value >= 2 / alpha accepts at a look (final test at alpha / 2)
    futility: float = 0.0    # screen: a look stops the challenger when its confirmation mean Δ is <= this
    extra_seeds: int = 1     # screen: seeds a promising, undecided challenger may add (each one more test look)
    promising: float = 0.3   # screen: ... when its p at the last look is below this
    rotate: bool = False     # screen: round r screens on the window (r - 1) * m tasks into the order
    name: str = "sequential"
    takes_alpha = True
    tested: set = field(default_factory=set, repr=False)  # (incumbent, challenger) hashes confirmed so far

    def __post_init__(self) -> None:
        if self.design not in ("screen", "halving"):
            raise InputError("--accept sequential", f"unknown design {self.design!r}", "screen or halving")

    def restore(self, history: list[dict]) -> None:
        """Rebuild what the rule remembers from a resumed search's ledger: the (incumbent, challenger)
        pairs it confirmed (every verdict that got past the screen), so a resumed search chooses what
        the uninterrupted one would have."""
        self.tested = {(row["parent"], row["hash"]) for row in history
                       if row.get("parent") and not str(row.get("stage", "")).startswith("screen")}

    def _first(self, n_all: int) -> int:
        return first_rung(n_all, self.first)

    def screen_size(self, n_all: int, k: int) -> int:
        """Tasks the screen design screens on (0 when there is nothing to choose or no task left to test)."""
        m = self._first(n_all)
        return m if k > 1 and n_all > m else 0

    def rungs(self, n_all: int, paid: int) -> list[int]:
        limit = min(n_all, max(paid, 0) + max(self._first(n_all), math.ceil(self.max_share * n_all)))
        rungs, n = [], min(self._first(n_all), limit)
        while n < limit:
            rungs.append(n)
            n *= 2
        return rungs + [limit]

    def _halve(self, scored: list[tuple[float, float, int]], verdicts: dict[int, Verdict]) -> list[int]:
        """Keep the better `keep` share by (wealth, mean Δ); ties go to the proposer's earlier proposal."""
        scored = sorted(scored, key=lambda s: (s[0], s[1], -s[2]), reverse=True)
        n_keep = max(1, int(self.keep * len(scored)))
        kept = [i for _, _, i in scored[:n_keep]]
        for gain, diff, i in scored:
            if i not in kept:
                verdicts[i].undecided = diff > 0
                verdicts[i].reason = (f"cut at {verdicts[i].stage} (successive halving): e-value {gain:.1f}, "
                                      f"mean Δ = {diff:+.3f}")
        return sorted(kept)

    async def incumbent_evaluation(self, incumbent: Harness, arena: Arena) -> Evaluation:
        """What the proposer sees of the incumbent: the tasks it already has (at least one rung)."""
        paid = arena.paid(incumbent)
        return await arena.evaluate(incumbent, max(paid, self._first(len(arena.tasks))))

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        if self.design == "screen":
            return await judge_screened(self, incumbent, proposals, arena)
        n_all, k = len(arena.tasks), max(1, len(proposals))
        order = [t.id for t in arena.tasks]
        key = arena.objective.value_key
        strata = arena.objective.strata
        accept_at, drop_at = k / self.alpha, 1.0 / self.drop_p
        paid = {i: arena.paid(p) for i, p in enumerate(proposals)}
        schedule = {i: self.rungs(n_all, paid[i]) for i in paid}
        verdicts: dict[int, Verdict] = {}
        alive, rung, winners = list(range(len(proposals))), 0, []
        while alive and not winners:
            sizes = {i: schedule[i][min(rung, len(schedule[i]) - 1)] for i in alive}
            inc = await arena.evaluate(incumbent, max(sizes.values()))
            evals = await asyncio.gather(*(arena.evaluate(proposals[i], sizes[i]) for i in alive))
            scored = []
            for i, ev in zip(alive, evals):
                paired = Paired.of(ev, inc, key)
                d = differences(paired, order)
                gain, harm = max_wealth(d, self.cap), max_wealth(-d, self.cap)
                verdict = verdicts[i] = Verdict(ev, "full" if sizes[i] >= n_all else f"{sizes[i]}/{n_all} tasks")
                verdict.p_value, verdict.p_adjusted = min(1.0, 1.0 / gain), min(1.0, k / gain)
                verdict.mean_diff = float(d.mean()) if d.size else 0.0
                vetoed = vetoes(paired, strata, lambda p, s: max_wealth(-differences(p, order, s), self.cap)
                                >= 1.0 / self.alpha)
                if ev.scorecard.joint.n == 0:
                    verdict.reason = f"{verdict.stage}: no valid rollout"
                elif gain >= accept_at and not vetoed:
                    winners.append(i)
                elif gain >= accept_at:
                    verdict.reason = f"significant gain but {'/'.join(vetoed)} regresses (harm e-value >= {1 / self.alpha:.0f})"
                elif harm >= drop_at:
                    verdict.reason = (f"dropped at {verdict.stage}: mean Δ = {verdict.mean_diff:+.3f}, "
                                      f"harm e-value {harm:.1f} >= {drop_at:.0f}")
                elif rung > 0 and verdict.mean_diff <= 0:
                    verdict.reason = (f"stopped at {verdict.stage}: no sign of a gain (mean Δ = "
                                      f"{verdict.mean_diff:+.3f} after the first rung)")
                elif sizes[i] >= schedule[i][-1]:
                    verdict.undecided = verdict.mean_diff > 0
                    verdict.reason = (f"undecided at {verdict.stage}: e-value {gain:.1f} < {accept_at:.0f} "
                                      f"(anytime p = {verdict.p_value:.3f}, ×{k} = {verdict.p_adjusted:.3f})")
                else:
                    scored.append((gain, verdict.mean_diff, i))
            alive = self._halve(scored, verdicts)
            rung += 1
        if winners:
            best = max(winners, key=lambda i: (verdicts[i].mean_diff, -verdicts[i].p_adjusted))
            verdicts[best].accepted = True
            verdicts[best].reason = (f"accepted at {verdicts[best].stage}: mean Δ = {verdicts[best].mean_diff:+.3f}, "
                                     f"e-value {1 / verdicts[best].p_value:.1f} >= {accept_at:.0f} (anytime p × {k} = "
                                     f"{verdicts[best].p_adjusted:.4f} < {self.alpha})")
            for i in winners:
                if i != best:
                    verdicts[i].undecided = True
                    verdicts[i].reason = "significant, but another proposal gained more"
            for i in alive:
                if i not in winners and not verdicts[i].reason:
                    verdicts[i].undecided = verdicts[i].mean_diff > 0
                    verdicts[i].reason = f"stopped at {verdicts[i].stage}: another proposal was accepted"
        inc = await arena.evaluate(incumbent, max((len(v.evaluation.tasks) for v in verdicts.values()), default=1))
        for verdict in verdicts.values():
            p_value, p_adjusted = verdict.p_value, verdict.p_adjusted
            describe(verdict, Paired.of(verdict.evaluation, inc, key), strata)
            verdict.p_value, verdict.p_adjusted = p_value, p_adjusted  # keep the anytime-valid ones
        return [verdicts[i] for i in range(len(proposals))]
