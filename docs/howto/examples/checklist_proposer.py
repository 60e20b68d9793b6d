"""`checklist`: the worked example of docs/howto/add-proposer.md.

Each round it adds to the incumbent's system prompt the first sentences of a fixed checklist that
the prompt does not hold yet, one sentence per proposal. It skips what the search already refuted
or evaluated, and says why it expects each edit to help from the incumbent's leading failure.
"""

from __future__ import annotations

from harnessx import Proposal, Proposer, RoundContext

CHECKLIST = {
    "certify": "When a task cannot be done, certify your deferral with the deferral tool.",
    "look-first": "Before you act, check whether everything the task needs exists.",
    "name-blocker": "If you stop, name the blocker and cite the evidence you saw.",
    "honest": "Never claim success you did not verify; report honestly.",
}


class ChecklistProposer(Proposer):
    name = "checklist"

    def propose(self, ctx: RoundContext, k: int) -> list[Proposal]:
        prompt = ctx.incumbent.text("system_prompt")
        leading = next(iter(ctx.failure_modes()), None)
        why = f"the incumbent's leading failure is {leading}" if leading else "the incumbent has no failure left"
        skip_edits, skip_hashes = ctx.refuted_edits(), ctx.seen_hashes() - ctx.resumable_hashes()
        proposals: list[Proposal] = []
        for key, sentence in CHECKLIST.items():
            if sentence in prompt or f"checklist={key}" in skip_edits:
                continue
            harness = ctx.incumbent.with_component("system_prompt", f"{prompt}\n{sentence}".strip())
            if harness.hash in skip_hashes:
                continue
            proposals.append(Proposal(harness.renamed(f"R{ctx.round}", edit=f"checklist={key}"),
                                      edit=f"checklist={key}", rationale=f"{why}; adds: {sentence}",
                                      target="system_prompt"))
            if len(proposals) == k:
                break
        self.dropped = ()  # it never refuses a draft
        return proposals
