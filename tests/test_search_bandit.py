"""The default `bandit` proposer: seeded Thompson draws over clause libraries and switch groups spread
the proposals; when single edits are exhausted it combines edits that were ahead, re-tests lost
ones on a new incumbent, and never stops while an unevaluated edit is left."""

from __future__ import annotations

from dataclasses import replace

from harnessx.search import SearchConfig
from harnessx.search.proposers import DEFAULT_PROPOSER, make_proposer
from harnessx.search.proposers.bandit import JOIN, BanditProposer, apply_edit
from harnessx.search.proposers.rules import RulesProposer
from test_search_space import context

FAILURES = {"false_abstention": 9, "proceeded": 2}


def row(p, r0, round_no, slot, mean, accepted=False, undecided=False, stage="full"):
    return {"round": round_no, "slot": slot, "hash": p.harness.hash, "parent": r0.hash, "edit": p.edit,
            "target": p.target, "accepted": accepted, "undecided": undecided, "stage": stage, "mean_diff": mean,
            "switches": p.harness.switches.model_dump(mode="json")}


def test_bandit_is_the_default_proposer_and_is_seeded():
    assert DEFAULT_PROPOSER == "bandit" and SearchConfig().run.proposer == "bandit"
    assert isinstance(make_proposer("bandit"), BanditProposer)
    ctx = context(FAILURES)
    first = BanditProposer().propose(ctx, 3)
    assert BanditProposer().propose(ctx, 3) == first  # a pure function of the context (resume)
    other = [BanditProposer().propose(replace(ctx, seed=s), 3) for s in range(1, 6)]
    assert any([p.edit for p in o] != [p.edit for p in first] for o in other)  # the seed matters


def test_the_bandit_spreads_proposals_over_targets_where_the_rules_proposer_stays_on_one():
    bandit, rules = set(), set()
    for seed in range(8):
        ctx = replace(context(FAILURES), seed=seed)
        bandit |= {p.target for p in BanditProposer().propose(ctx, 3)}
        rules |= {p.target for p in RulesProposer().propose(ctx, 3)}
    assert rules == {"feasible_guard"}
    assert len(bandit) >= 6


def test_evidence_moves_the_draws_toward_targets_that_were_ahead():
    ctx = context(FAILURES)
    r0 = ctx.incumbent
    singles = BanditProposer().propose(ctx, 3)
    good = singles[0]
    history = [row(good, r0, 1, 0, 0.2, undecided=True)] * 6
    history += [row(p, r0, 1, i + 1, -0.2) for i, p in enumerate(singles[1:])] * 3
    shares = [sum(d[0] == good.target for d in BanditProposer().draws(replace(ctx, seed=s, history=tuple(history)))[:3])
              for s in range(20)]
    assert sum(shares) >= 12  # among the top three draws in most seeds (3 of 15 targets by chance: 4 of 20)


def test_never_dry_singles_then_combinations_then_retests():
    ctx = context(FAILURES)
    r0 = ctx.incumbent
    proposer = BanditProposer()
    history, seen_edits = [], set()
    for round_no in range(1, 200):
        c = replace(ctx, round=round_no, history=tuple(history))
        proposals = proposer.propose(c, 3)
        if not proposals:
            break
        for slot, p in enumerate(proposals):
            assert p.harness.hash not in {h["hash"] for h in history}  # never a harness already evaluated
            seen_edits.add(p.edit)
            ahead = p.edit in {"self_check_wording=verify-or-defer"} or slot == 0 and round_no % 5 == 0
            history.append(row(p, r0, round_no, slot, 0.05 if ahead else -0.05, undecided=ahead))
    singles = {e for e in seen_edits if JOIN not in e}
    combos = {e for e in seen_edits if JOIN in e}
    libraries = {f"{n}={c.id}" for n, lib in ctx.space.libraries.items() for c in lib.clauses}
    assert libraries <= singles  # every clause of every library proposed: no blind spot
    assert combos  # edits that were ahead separately were combined
    # after a move the lost edits come back as re-tests on the new incumbent
    winner = next(p for p in BanditProposer().propose(ctx, 3))
    moved = replace(ctx, round=round_no + 1, incumbent=winner.harness, history=tuple(history))
    again = BanditProposer().propose(moved, 3)
    assert len(again) == 3 and any("re-test" in p.rationale or "bandit" in p.rationale for p in again)


def test_apply_edit_rebuilds_library_and_switch_edits_from_their_keys():
    ctx = context(FAILURES)
    r0 = ctx.incumbent
    singles = [p for p in BanditProposer().propose(ctx, 3) if JOIN not in p.edit]
    for p in singles + RulesProposer().propose(context({"error": 5}), 3):
        rebuilt = apply_edit(ctx.space, r0, p.edit, p.harness.switches.model_dump(mode="json"))
        assert rebuilt is not None and rebuilt.hash == p.harness.renamed(r0.name, edit=None).hash or \
            rebuilt.text("system_prompt") == p.harness.text("system_prompt")
    assert apply_edit(ctx.space, r0, "no_such=thing", {}) is None
