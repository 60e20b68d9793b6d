"""Edits not yet tried together: how the default proposer reaches an interaction.

Two clauses may do nothing alone and pay only together (a *synergy*; harnessx/sim/worlds.py draws
such worlds). A proposer that combines only edits that were ahead separately never proposes that
pair, whatever the budget. So a share of every round's proposals (`PAIR_SHARE` = a third of K,
rounded; when that is below one, one group every round(3 / K) rounds) is a *group*: the incumbent with up to `GROUP` single
edits of different libraries or switch groups, chosen by a covering schedule, not by what the edits
read alone (a pair that pays only together ties alone):

- the universe is every clause of every library the incumbent does not hold, plus every switch edit
  the search has already proposed (its values from the ledger);
- a pair of edits is *open* until some proposal held both (a group or a combination: the ledger's
  edit keys `a + b + ...`);
- each group starts from the open pair whose edits have been grouped the fewest times, and grows by
  the edits that close the most open pairs with it (ties in a seeded order); an edit that read
  clearly behind alone (mean difference below `-BEHIND`) joins only groups of such edits, after
  every other pair.

One look closes up to C(GROUP, 2) = 6 pairs (group testing: edits that do nothing alone do nothing
together, unless they interact), so with p group slots a round every pair of the space's clauses is
proposed within about (number of cross-library pairs) / (6 p) rounds, whatever the single edits read;
`bench/proposer_reach.py` measures when a search first proposes a world's best pair.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

from harnessx.harness import Harness
from harnessx.search.proposers.base import Proposal, RoundContext
from harnessx.search.space import SearchSpace, stable_seed

JOIN = " + "  # the edit key of a combination: its single edits' keys
PAIR_SHARE = 1 / 3  # of each round's proposals
GROUP = 4  # edits per group: C(4, 2) = 6 pairs covered by one look
BEHIND = 0.15  # a single edit that read below -BEHIND alone is paired last (a null edit reads about +-0.1 on a screen)


def apply_edit(space: SearchSpace, harness: Harness, key: str, switches: dict) -> Harness | None:
    """The harness with one single edit of the ledger applied (`library=clause` or `group:p=v, ...`,
    the values from the ledger row's `switches`), or None if the key names nothing of this space."""
    name, sep, clause_id = key.partition("=")
    if sep and ":" not in name and name in space.libraries:
        library = space.libraries[name]
        clause = next((c for c in library.clauses if c.id == clause_id), None)
        return library.apply(harness, clause) if clause else None
    group, sep, rest = key.partition(":")
    if not sep or group not in space.switches:
        return None
    params = [kv.split("=", 1)[0] for kv in rest.split(", ")]
    if not all(p in switches for p in params):
        return None
    return harness.with_switches(**{p: switches[p] for p in params})


def pair_slots(round_no: int, k: int, share: float = PAIR_SHARE) -> int:
    """How many of the round's k proposals are groups (`share` 0: none)."""
    if share <= 0 or k < 1:
        return 0
    if k * share < 1:
        return 1 if round_no % max(1, round(1 / (k * share))) == 0 else 0
    return round(k * share)


def _target(key: str) -> str:
    return key.split("=", 1)[0].split(":", 1)[0]


def _ledger(ctx: RoundContext) -> tuple[dict[str, dict], dict[str, float], set[frozenset[str]], Counter[str]]:
    """From the ledger: switch edits' values, each single edit's latest read, the pairs proposed
    together, and how often each edit was in a group or combination."""
    switches: dict[str, dict] = {}
    last: dict[str, float] = {}
    together: set[frozenset[str]] = set()
    used: Counter[str] = Counter()
    for row in ctx.history:
        edit = row.get("edit") or ""
        if not edit or not row.get("parent"):
            continue
        keys = edit.split(JOIN)
        if len(keys) == 1:
            last[edit] = row.get("mean_diff") or 0.0
            if _target(edit) in ctx.space.switches:
                switches[edit] = row.get("switches", {})
        for a, b in itertools.combinations(keys, 2):
            together.add(frozenset((a, b)))
            used.update((a, b))
    return switches, last, together, used


def pairs(ctx: RoundContext) -> Iterator[Proposal]:
    """Groups of up to GROUP single edits holding pairs not yet proposed together (module doc)."""
    switches, last, together, used = _ledger(ctx)
    universe = [f"{name}={c.id}" for name, lib in ctx.space.libraries.items()
                for c in lib.clauses if (held := lib.current(ctx.incumbent)) is None or held.id != c.id]
    # one setting per switch group (its best read alone), so the groups' endless values do not swamp the clauses
    best: dict[str, str] = {}
    for edit in sorted(switches, key=lambda e: last.get(e, 0.0)):
        best[_target(edit)] = edit
    universe += sorted(best.values())
    rng = random.Random(stable_seed(ctx.seed, ctx.round, "pairs"))
    rng.shuffle(universe)
    rank = {e: i for i, e in enumerate(universe)}
    behind = {e for e in universe if last.get(e, 0.0) < -BEHIND}

    def open_pairs() -> list[tuple[str, str]]:
        return [(a, b) for a, b in itertools.combinations(universe, 2)
                if _target(a) != _target(b) and frozenset((a, b)) not in together]

    seen = ctx.seen_hashes()
    tried: set[tuple[str, ...]] = set()
    while (left := [p for p in open_pairs() if p not in tried]):
        # the least-covered open pair, clearly-behind edits last; then grow it by the edits that close the most open pairs
        a, b = min(left, key=lambda p: ((p[0] in behind) + (p[1] in behind), used[p[0]] + used[p[1]],
                                       rank[p[0]] + rank[p[1]]))
        tried.add((a, b))
        group = [a, b]
        while len(group) < GROUP:
            fits = [e for e in universe if e not in group and _target(e) not in {_target(g) for g in group}
                    and (e in behind) <= any(g in behind for g in group)]
            gain = {e: sum(frozenset((e, g)) not in together for g in group) for e in fits}
            best = max(fits, key=lambda e: (gain[e], -used[e], -rank[e]), default=None)
            if best is None or gain[best] == 0:
                break
            group.append(best)
        harness = ctx.incumbent
        for key in group:
            harness = apply_edit(ctx.space, harness, key, switches.get(key, {})) if harness is not None else None
        if harness is None or harness.hash in seen:
            continue
        together.update(frozenset(p) for p in itertools.combinations(group, 2))
        used.update(group)
        edit = JOIN.join(sorted(group))
        yield Proposal(harness.renamed(f"R{ctx.round}", edit=edit), edit,
                       f"{len(group)} edits not yet tried together (an interaction shows only together): "
                       + ", ".join(group), "pair")
