"""The `bandit` proposer (the default): spread proposals over the space by their evidence, never run dry.

Each round it draws, for every clause library and switch group of the space (a *target*), a seeded
Thompson sample of Beta(1 + ahead, 1 + behind): `ahead` counts the target's earlier proposals whose
mean per-task difference was positive, `behind` the others; a target that addresses one of the
incumbent's leading failure modes gets one more `ahead` (a hint, not a fixed order). Targets are
visited in the order of their draws, one edit each before a second; inside a library the clauses not
tried yet come first (in a seeded order, so no sibling wording blocks another), then the undecided
ones. When the single edits are exhausted it proposes, in this order:

1. **combinations** of edits that were ahead separately (pairs, largest summed gain first), put
   together on the incumbent;
2. **re-tests** of edits that lost against an earlier incumbent, on the current one (evidence
   against another harness says little about this one);
3. switch settings from each group's TPE sampler beyond the first few (the rest of its range).

A share of every round's proposals (a third of K; harnessx/search/proposers/pairs.py) is a **pair**
of single edits not yet tried together, on a covering schedule blind to what the edits read alone:
two clauses that pay only together tie alone, so no evidence-led combination would reach them.

It stops only when every one of these is a harness already evaluated. A pure function of the round
context (seeded by the search's seed and the round), so a resumed search proposes the same edits.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from harnessx.search.proposers.base import Proposal, RoundContext
from harnessx.search.proposers.pairs import JOIN, PAIR_SHARE, apply_edit, pair_slots, pairs
from harnessx.search.proposers.rules import SHARE_OF_TOP, RulesProposer, _round_robin
from harnessx.search.space import stable_seed

__all__ = ["JOIN", "BanditProposer", "apply_edit"]


class BanditProposer(RulesProposer):
    name = "bandit"

    def __init__(self, pair_share: float = PAIR_SHARE):
        self.pair_share = pair_share  # of each round's proposals that are groups (0: none, the bandit before #48)

    def propose(self, ctx: RoundContext, k: int) -> list[Proposal]:
        taken: dict[str, Proposal] = {}
        hashes = {ctx.incumbent.hash}
        main = itertools.chain(self._singles(ctx), self._combinations(ctx), self._retests(ctx), self._ranges(ctx))
        coupled = pairs(ctx)
        # k - p from the main sources, then p pairs; either fills the other's slots when it runs dry
        for source, quota in ((main, k - pair_slots(ctx.round, k, self.pair_share)), (coupled, k), (main, k)):
            while len(taken) < quota and (proposal := next(source, None)) is not None:
                if proposal.edit not in taken and proposal.harness.hash not in hashes:
                    taken[proposal.edit] = proposal
                    hashes.add(proposal.harness.hash)
            if len(taken) >= k:
                break
        return list(taken.values())

    # --- evidence ---------------------------------------------------------------------------------
    def draws(self, ctx: RoundContext) -> list[tuple[str, float, int, int]]:
        """(target, Thompson draw, ahead, behind) per target of the space, best draw first."""
        counts = ctx.failure_modes()
        top = next(iter(counts.values()), 0)
        leading = {m for m, c in counts.items() if c > 0 and c >= SHARE_OF_TOP * top}
        hinted = {t for m in leading for t in ctx.space.targets_for(m)}
        rng = random.Random(stable_seed(ctx.seed, ctx.round, "bandit"))
        out = []
        for target in [*ctx.space.libraries, *ctx.space.switches]:
            rows = [r for r in ctx.history if r.get("target") == target and r.get("parent")]
            ahead = sum(1 for r in rows if (r.get("mean_diff") or 0.0) > 0)
            behind = len(rows) - ahead
            out.append((target, rng.betavariate(1 + ahead + (target in hinted), 1 + behind), ahead, behind))
        return sorted(out, key=lambda x: -x[1])

    def _last(self, ctx: RoundContext) -> dict[str, dict]:
        """The latest ledger row of each single edit."""
        last: dict[str, dict] = {}
        for row in ctx.history:
            if row.get("edit") and row.get("parent") and JOIN not in row["edit"]:
                last[row["edit"]] = row
        return last

    # --- the sources, in order ---------------------------------------------------------------------
    def _singles(self, ctx: RoundContext) -> Iterator[Proposal]:
        refuted, blocked = ctx.refuted_edits(), ctx.seen_hashes() - ctx.resumable_hashes()
        streams = []
        for target, draw, ahead, behind in self.draws(ctx):
            why = f"bandit draw {draw:.2f} for {target} (ahead in {ahead} of {ahead + behind} earlier proposals)"
            edits = [e for e in self._target_edits(ctx, target) if e[1] not in refuted and e[2].hash not in blocked]
            rng = random.Random(stable_seed(ctx.seed, ctx.round, target))
            fresh = [e for e in edits if e[1] not in ctx.rejected_edits()]
            rng.shuffle(fresh)
            again = [e for e in edits if e[1] in ctx.rejected_edits()]
            streams.append(iter([(e, why) for e in fresh + again]))
        for (target, edit, harness, what), why in _round_robin(streams):
            again = " (undecided before: resumes from its paid evidence)" if edit in ctx.rejected_edits() else ""
            yield Proposal(harness.renamed(f"R{ctx.round}", edit=edit), edit, f"{why}; {what}{again}", target)

    def _combinations(self, ctx: RoundContext) -> Iterator[Proposal]:
        helped = sorted(((r.get("mean_diff") or 0.0, e, r) for e, r in self._last(ctx).items()
                         if (r.get("mean_diff") or 0.0) > 0), key=lambda x: (-x[0], x[1]))
        pairs = sorted(itertools.combinations(helped, 2), key=lambda p: (-(p[0][0] + p[1][0]), p[0][1], p[1][1]))
        seen = ctx.seen_hashes()
        for (da, a, ra), (db, b, rb) in pairs:
            one = apply_edit(ctx.space, ctx.incumbent, a, ra.get("switches", {}))
            both = apply_edit(ctx.space, one, b, rb.get("switches", {})) if one is not None else None
            if both is None or both.hash in seen or one.hash == ctx.incumbent.hash or both.hash == one.hash:
                continue
            edit = JOIN.join(sorted((a, b)))
            yield Proposal(both.renamed(f"R{ctx.round}", edit=edit), edit,
                           f"combination of two edits that were ahead separately ({da:+.3f}, {db:+.3f})", "combination")

    def _retests(self, ctx: RoundContext) -> Iterator[Proposal]:
        seen = ctx.seen_hashes()
        rows = sorted(self._last(ctx).items(), key=lambda x: (-(x[1].get("mean_diff") or 0.0), x[0]))
        for edit, row in rows:
            if row.get("parent") == ctx.incumbent.hash:
                continue
            harness = apply_edit(ctx.space, ctx.incumbent, edit, row.get("switches", {}))
            if harness is not None and harness.hash not in seen:
                yield Proposal(harness.renamed(f"R{ctx.round}", edit=edit), edit,
                               f"re-test on the new incumbent (was {row.get('mean_diff') or 0.0:+.3f} against "
                               f"round {row['round']}'s)", row.get("target", ""))

    def _ranges(self, ctx: RoundContext) -> Iterator[Proposal]:
        seen = ctx.seen_hashes()
        for name, group in ctx.space.switches.items():
            for edit, harness, what in self._switch_edits(ctx, name, group, tries=64):
                if harness.hash not in seen:
                    yield Proposal(harness.renamed(f"R{ctx.round}", edit=edit), edit, f"switch range: {what}", name)
