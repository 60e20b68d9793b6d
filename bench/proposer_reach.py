"""Does the proposer reach what exists? (#48 item 3)

For one world, on ground truth: the best single edit from R0, and the best pair of edits -- the best
of the pairs of the top single edits and of the pairs whose edits touch two cues that the world makes
interact (a synergy pays only together, so no single edit shows it). Then, per search, the first
*look* (the n-th candidate proposed, counted over the whole search) and the first round at which a
proposed harness holds the best single edit, and holds both edits of the best pair; None = never in
that search. A proposer that never reaches a helpful edit or a pair that pays only together is a
defect, not noise.

    python bench/search_efficiency.py --reach ...   (columns `reach 1` and `reach 2`)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from harnessx.harness import Harness
from harnessx.harness.render import render
from harnessx.sim.cues import active_cues
from harnessx.sim.profile import load_profile

from search_worlds import single_edits

TOP = 4  # pairs among this many best single edits are measured, besides the interacting ones


def cues_of(harness: Harness) -> frozenset[str]:
    """Every cue the simulated agent reads in the harness's texts (system, self-check, report)."""
    shown = render(harness, [], "tool")
    return (active_cues(shown.system, "system") | active_cues(shown.self_check, "check")
            | active_cues(shown.report, "report"))


@dataclass(frozen=True, eq=False)  # compared by identity: one object per edit of the space
class Edit:
    key: str
    harness: Harness  # R0 with the edit


def holds(space, harness: Harness, edit: Edit, base: Harness) -> bool:
    """Whether `harness` carries `edit` (its clause, or every switch value the edit sets)."""
    name, _, clause = edit.key.partition("=")
    if name in space.libraries and ":" not in name:
        held = space.libraries[name].current(harness)
        return held is not None and held.id == clause
    want = {k: v for k, v in edit.harness.switches.model_dump().items() if base.switches.model_dump()[k] != v}
    have = harness.switches.model_dump()
    return all(have[k] == v for k, v in want.items())


def combine(space, a: Edit, b: Edit) -> Harness | None:
    """R0 with both edits, or None when they change the same library or switch."""
    name_a, name_b = a.key.split("=")[0].split(":")[0], b.key.split("=")[0].split(":")[0]
    if name_a == name_b:
        return None
    out = a.harness
    name, _, clause_id = b.key.partition("=")
    if name in space.libraries and ":" not in name:
        library = space.libraries[name]
        return library.apply(out, next(c for c in library.clauses if c.id == clause_id))
    changed = {k: v for k, v in b.harness.switches.model_dump().items() if a.harness.switches.model_dump()[k] != v}
    return out.with_switches(**changed)


@dataclass
class Targets:
    """What a search should reach in one world: the best single edit and the best pair, on ground truth."""
    best_single: Edit
    single_gain: float
    best_pair: tuple[Edit, Edit] | None
    pair_gain: float
    pair_alone: float  # the better of the pair's two edits alone: a pair with pair_gain >> pair_alone pays only together


def targets(space, r0: Harness, truth, profile: str) -> Targets:
    base = truth.value(r0)
    edits = [Edit(key, h) for key, h in single_edits(space, r0)]
    gains = {e.key: truth.value(e.harness) - base for e in edits}
    ranked = sorted(edits, key=lambda e: -gains[e.key])
    pairs = set(itertools.combinations(ranked[:TOP], 2))
    interacting = [tuple(p.split("+")) for p in load_profile(profile).interactions]
    cues = {e.key: cues_of(e.harness) - cues_of(r0) for e in edits}
    for a, b in itertools.combinations(edits, 2):
        if any((x in cues[a.key] and y in cues[b.key]) or (y in cues[a.key] and x in cues[b.key]) for x, y in interacting):
            pairs.add((a, b))
    best, best_gain = None, float("-inf")
    for a, b in sorted(pairs, key=lambda p: (p[0].key, p[1].key)):
        both = combine(space, a, b)
        if both is not None and (gain := truth.value(both) - base) > best_gain:
            best, best_gain = (a, b), gain
    alone = max(gains[best[0].key], gains[best[1].key]) if best else float("nan")
    return Targets(ranked[0], gains[ranked[0].key], best, best_gain, alone)


def first_reach(space, r0: Harness, proposals: list[tuple[int, Harness]], want: tuple[Edit, ...]) -> tuple[int, int] | None:
    """(look, round) of the first proposal holding every edit of `want`; looks count from 1."""
    for look, (round_, harness) in enumerate(proposals, 1):
        if all(holds(space, harness, e, r0) for e in want):
            return look, round_
    return None
