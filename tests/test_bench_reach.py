"""bench/proposer_reach.py: the best single edit and the best pair of a world (a synergy that pays
only together included), and when a search's proposals first hold them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from proposer_reach import Edit, combine, cues_of, first_reach, holds, targets  # noqa: E402
from search_worlds import single_edits  # noqa: E402

from harnessx.search import load_space  # noqa: E402
from harnessx.sim.profile import load_profile, register_profile  # noqa: E402

SPACE = load_space()
R0 = SPACE.initial()
EDITS = [Edit(k, h) for k, h in single_edits(SPACE, R0)]


def _two_with_new_cues() -> tuple[Edit, Edit, str, str]:
    """Two clause edits of different libraries, each adding a cue R0 does not have."""
    base = cues_of(R0)
    found: dict[str, tuple[Edit, str]] = {}
    for edit in EDITS:
        library = edit.key.split("=")[0]
        new = sorted(cues_of(edit.harness) - base)
        if ":" not in library and new and library not in found and all(new[0] != c for _, c in found.values()):
            found[library] = (edit, new[0])
    (a, ca), (b, cb) = list(found.values())[:2]
    return a, b, ca, cb


class FakeTruth:
    """Ground truth as a function of which edits a harness holds: the pair pays only together."""

    def __init__(self, a: Edit, b: Edit, small: Edit):
        self.a, self.b, self.small = a, b, small

    def value(self, harness) -> float:
        both = holds(SPACE, harness, self.a, R0) and holds(SPACE, harness, self.b, R0)
        return 0.5 + 0.2 * both + 0.01 * holds(SPACE, harness, self.small, R0)


def test_a_pair_that_pays_only_together_is_found_through_the_worlds_interactions():
    a, b, ca, cb = _two_with_new_cues()
    small = next(e for e in EDITS if e.key.split("=")[0] not in (a.key.split("=")[0], b.key.split("=")[0]))
    world = register_profile(load_profile("baseline").model_copy(update={
        "name": "reach-test", "interactions": {f"{ca}+{cb}": {"certify": 2.0}}}))
    goal = targets(SPACE, R0, FakeTruth(a, b, small), world.removeprefix("sim/"))
    assert goal.best_single.key == small.key and abs(goal.single_gain - 0.01) < 1e-12
    assert {e.key for e in goal.best_pair} == {a.key, b.key}
    assert abs(goal.pair_gain - 0.2) < 1e-12 and goal.pair_alone == 0.0


def test_a_pair_of_edits_in_one_library_is_no_pair():
    a = next(e for e in EDITS if ":" not in e.key.split("=")[0])
    sibling = next(e for e in EDITS if e.key != a.key and e.key.split("=")[0] == a.key.split("=")[0])
    assert combine(SPACE, a, sibling) is None


def test_first_reach_counts_looks_and_rounds_until_a_proposal_holds_every_edit():
    a, b, _, _ = _two_with_new_cues()
    both = combine(SPACE, a, b)
    proposals = [(1, R0), (1, a.harness), (2, b.harness), (3, both)]
    assert first_reach(SPACE, R0, proposals, (a,)) == (2, 1)
    assert first_reach(SPACE, R0, proposals, (a, b)) == (4, 3)
    assert first_reach(SPACE, R0, proposals[:3], (a, b)) is None
