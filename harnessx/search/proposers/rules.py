"""The offline `rules` proposer: fix the incumbent's dominant failure from the search space.

It ranks the incumbent's failure modes by count and, for each, walks the libraries and switch
groups of the space that address it: a library edit swaps in a clause the component does not
hold yet; a switch edit takes values from an Optuna TPE sampler that has seen how earlier values
of that group fared. Rejected is not refuted: it never repeats an edit the rule refuted, but an
undecided one (positive mean gain, not yet significant) may come back, on a new incumbent or, when
its evidence covered only part of the split, as the same harness resuming from the rollouts it
already has. It is a pure function of the round context, so a resumed search proposes exactly
what it proposed before.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import optuna

from harnessx.harness import Harness
from harnessx.logs import library_level
from harnessx.search.proposers.base import Proposal, Proposer, RoundContext
from harnessx.search.space import SwitchGroup, contains, stable_seed

optuna.logging.set_verbosity(library_level())
SHARE_OF_TOP = 0.25  # failure modes at least this share of the dominant one get proposals too
SAMPLER_TRIES = 8


class RulesProposer(Proposer):
    name = "rules"
    offline = True  # edits from the space by failure mode; no model

    def propose(self, ctx: RoundContext, k: int) -> list[Proposal]:
        counts = ctx.failure_modes()
        top = next(iter(counts.values()), 0)
        modes = [m for m, c in counts.items() if c >= SHARE_OF_TOP * top and c > 0]
        targets = {m: ctx.space.targets_for(m) for m in modes}
        everything = list(ctx.space.libraries) + list(ctx.space.switches)
        focused = _round_robin([self._edits(ctx, m, targets[m]) for m in modes])
        taken: dict[str, Proposal] = {}
        for proposal in itertools.chain(focused, self._edits(ctx, None, everything)):
            if proposal.edit not in taken and proposal.harness.hash not in {p.harness.hash for p in taken.values()}:
                taken[proposal.edit] = proposal
            if len(taken) == k:
                break
        return list(taken.values())

    def _edits(self, ctx: RoundContext, mode: str | None, targets: list[str]) -> Iterator[Proposal]:
        n = ctx.evaluation.scorecard.joint.n
        why = (f"{mode} is a leading failure of the incumbent ({ctx.failure_modes()[mode]} of {n} rollouts)"
               if mode else "exploring the space beyond the incumbent's failure modes")
        refuted, blocked = ctx.refuted_edits(), ctx.seen_hashes() - ctx.resumable_hashes()
        streams = [self._target_edits(ctx, t) for t in targets]  # one edit per target before a second
        for target, edit, harness, what in _round_robin(streams):
            if edit not in refuted and harness.hash not in blocked:
                again = " (undecided before: resumes from its paid evidence)" if edit in ctx.rejected_edits() else ""
                yield Proposal(harness.renamed(f"R{ctx.round}", edit=edit), edit, f"{why}; {what}{again}", target)

    def _target_edits(self, ctx: RoundContext, target: str) -> Iterator[tuple[str, str, Harness, str]]:
        if target in ctx.space.libraries:
            edits = self._clause_edits(ctx, target)
        else:
            edits = self._switch_edits(ctx, target, ctx.space.switches[target])
        return ((target, *edit) for edit in edits)

    def _clause_edits(self, ctx: RoundContext, name: str) -> Iterator[tuple[str, Harness, str]]:
        library = ctx.space.libraries[name]
        held = library.current(ctx.incumbent)
        for clause in library.clauses:
            if held is None or clause.id != held.id:
                yield (f"{name}={clause.id}", library.apply(ctx.incumbent, clause),
                       f"{name}: put clause '{clause.id}' into {library.component}")

    def _switch_edits(self, ctx: RoundContext, name: str, group: SwitchGroup,
                      tries: int = SAMPLER_TRIES) -> Iterator[tuple[str, Harness, str]]:
        distributions = group.distributions()
        study = optuna.create_study(direction="maximize",
                                    sampler=optuna.samplers.TPESampler(seed=stable_seed(ctx.seed, ctx.round, name)))
        for row in ctx.history:
            params = {p: row.get("switches", {}).get(p) for p in distributions}
            if row.get("target") == name and all(contains(distributions[p], v) for p, v in params.items()):
                study.add_trial(optuna.trial.create_trial(params=params, distributions=distributions,
                                                          value=row.get("mean_diff") or 0.0))
        current = ctx.incumbent.switches.model_dump()
        for _ in range(tries):
            params = study.ask(fixed_distributions=distributions).params
            if any(current[p] != v for p, v in params.items()):
                changed = ", ".join(f"{p}={v}" for p, v in sorted(params.items()))
                yield (f"{name}:{changed}", ctx.incumbent.with_switches(**params),
                       f"switch group {name}: {changed} (Optuna TPE)")


def _round_robin(streams: list[Iterator]) -> Iterator:
    for batch in itertools.zip_longest(*streams):
        yield from (p for p in batch if p is not None)
