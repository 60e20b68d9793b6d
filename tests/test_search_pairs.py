"""The default proposer reaches pairs that pay only together (#48 item 3).

Class: two edits of different libraries that tie alone (the simulator's drawn *synergy* worlds:
both cues do nothing alone) and pay together. A proposer that combines only edits ahead separately
never proposes them; the bandit's group slots (harnessx/search/proposers/pairs.py) cover every
pair of the space's clauses on a schedule blind to the single reads. Property over drawn worlds and
search seeds, with every proposal reading a seeded null difference (the class: edits that tie).
"""

from __future__ import annotations

import itertools
import math
import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from proposer_reach import cues_of  # noqa: E402
from search_worlds import single_edits  # noqa: E402
from test_search_space import context  # noqa: E402

from harnessx.search.proposers.bandit import JOIN, BanditProposer  # noqa: E402
from harnessx.search.proposers.pairs import GROUP, pair_slots  # noqa: E402
from harnessx.sim.worlds import draw_world  # noqa: E402

K = 3
CTX = context({"false_abstention": 9, "proceeded": 2})
R0 = CTX.incumbent
CLAUSE_PAIRS = [frozenset((f"{a}={x.id}", f"{b}={y.id}"))
                for (a, la), (b, lb) in itertools.combinations(CTX.space.libraries.items(), 2)
                for x in la.clauses for y in lb.clauses
                if la.current(R0) is None or la.current(R0).id != x.id
                if lb.current(R0) is None or lb.current(R0).id != y.id]
# the covering bound: each group look closes up to C(GROUP, 2) open pairs; twice that many rounds as slack
BOUND_ROUNDS = 2 * math.ceil(len(CLAUSE_PAIRS) / (math.comb(GROUP, 2) * pair_slots(1, K)))
# a world's synergy pair, within the covering bound too; the bandit without group slots (pair_share=0,
# combinations of edits read ahead only) never proposes it there in a third of these worlds' seeds
REACH_LOOKS = BOUND_ROUNDS * K


def null_search(seed: int, rounds: int, proposer=None, stop=None):
    """Rounds of proposals whose every read is a null difference (seeded noise about 0, as a screen
    shows an edit that does nothing alone); yields (look, proposal) in order."""
    proposer, rng, history, look = proposer or BanditProposer(), random.Random(seed), [], 0
    for round_no in range(1, rounds + 1):
        ctx = replace(CTX, round=round_no, seed=seed, history=tuple(history))
        for slot, p in enumerate(proposer.propose(ctx, K)):
            look += 1
            yield look, p
            history.append({"round": round_no, "slot": slot, "hash": p.harness.hash, "parent": R0.hash,
                            "edit": p.edit, "target": p.target, "accepted": False, "undecided": False,
                            "stage": "screen", "mean_diff": round(rng.gauss(0, 0.08), 3),
                            "switches": p.harness.switches.model_dump(mode="json")})


@pytest.mark.parametrize("seed", [0, 1])
def test_every_pair_of_clauses_is_proposed_within_the_covering_bound(seed):
    open_pairs = set(CLAUSE_PAIRS)
    for _, p in null_search(seed, BOUND_ROUNDS):
        keys = p.edit.split(JOIN)
        open_pairs -= {frozenset(x) for x in itertools.combinations(keys, 2)}
        if not open_pairs:
            break
    assert not open_pairs, f"{len(open_pairs)} of {len(CLAUSE_PAIRS)} pairs never proposed in {BOUND_ROUNDS} rounds"


def synergy_worlds(n: int = 40) -> list[tuple[int, str, str]]:
    """Draws whose synergy pair is two cues R0 lacks, each added by some single clause edit."""
    base = cues_of(R0)
    reachable = set().union(*(cues_of(h) - base for key, h in single_edits(CTX.space, R0) if ":" not in key))
    out = []
    for draw in range(n):
        for pair, effect in draw_world(draw).interactions.items():
            x, y = pair.split("+")
            if "certify" in effect and {x, y} <= reachable:
                out.append((draw, x, y))
    return out


def test_the_drawn_worlds_hold_synergy_pairs_the_space_can_reach():
    assert len(synergy_worlds()) >= 6


@pytest.mark.parametrize("draw,x,y", synergy_worlds()[:6])
def test_the_default_proposes_a_synergy_pair_of_null_edits_within_the_bound_for_every_seed(draw, x, y):
    """Fails on a bandit that combines only edits read ahead separately (BanditProposer(pair_share=0))."""
    for seed in range(3):
        reached = next((look for look, p in null_search(seed, REACH_LOOKS // K) if {x, y} <= cues_of(p.harness)), None)
        assert reached is not None, f"draw {draw}, seed {seed}: {x} + {y} not proposed together in {REACH_LOOKS} looks"
