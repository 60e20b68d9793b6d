"""The oracle bound of bench/search_efficiency.py: it chooses by ground truth, tests on the whole split
at alpha, and never retests a proposal against the same incumbent (its evidence could not change)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from search_efficiency import Oracle  # noqa: E402
from test_search_acceptance import FakeArena, evaluation, make_tasks  # noqa: E402

N = 30
TASKS = make_tasks(N)


class KnownTruth:
    """Ground truth by harness name."""

    def __init__(self, values: dict[str, float]):
        self.values = values

    async def value_async(self, harness) -> float:
        return self.values[harness.name]


def judge(rule, flags: dict[str, tuple[list[int], list[int]]]):
    evals = {name: evaluation(name, TASKS, *f) for name, f in flags.items()}
    arena = FakeArena({ev.harness.hash: ev for ev in evals.values()})
    proposals = [evals[n].harness for n in flags if n != "inc"]
    return asyncio.run(rule.judge(evals["inc"].harness, proposals, arena)), arena


def test_the_oracle_chooses_by_ground_truth_and_tests_on_the_whole_split():
    none, some, many = [0] * N, [1] * 10 + [0] * (N - 10), [1] * N
    flags = {"inc": (none, none), "looks_good": (many, many), "truly_best": (some, some)}
    rule = Oracle(KnownTruth({"inc": 0.3, "looks_good": 0.31, "truly_best": 0.5}))
    (looks, best), arena = judge(rule, flags)
    assert best.accepted and best.stage == "full" and abs(best.mean_diff - 20 / 60) < 1e-9 and best.p_value < 0.05
    assert not looks.accepted and looks.undecided and "not chosen" in looks.reason   # positive GT: may come back
    assert ("looks_good", 1) in arena.served and ("looks_good", 2 * N) not in arena.served  # one task, for the ledger
    # the same round again: "truly_best" was tested against this incumbent, so the other one is
    (looks, best), _ = judge(rule, flags)
    assert "tested before" in best.reason and looks.stage == "full" and looks.accepted


def test_the_oracle_tests_nothing_when_no_proposal_truly_helps():
    zeros = [0] * N
    rule = Oracle(KnownTruth({"inc": 0.5, "a": 0.4, "b": 0.5}))
    verdicts, arena = judge(rule, {"inc": (zeros, zeros), "a": ([1] * N, zeros), "b": (zeros, [1] * N)})
    assert not any(v.accepted for v in verdicts) and not any(v.undecided for v in verdicts)
    assert all(n == 1 for name, n in arena.served if name in ("a", "b"))


def test_compose_keeps_every_edit_and_the_earlier_one_on_a_clash():
    from harnessx.search import load_space
    from search_efficiency import compose

    space = load_space()
    r0 = space.initial()
    libs = [lib for lib in space.libraries.values() if len(lib.clauses) >= 2][:2]
    (a, la), (b, lb) = [(lib.apply(r0, lib.clauses[0]), lib) for lib in libs[:1]] + \
        [(lib.apply(r0, lib.clauses[0]), lib) for lib in libs[1:2]]
    both = compose(space, r0, [a, b])
    assert la.current(both).id == la.clauses[0].id and lb.current(both).id == lb.clauses[0].id
    clash = la.apply(r0, la.clauses[1])
    first_wins = compose(space, r0, [a, clash])
    assert la.current(first_wins).id == la.clauses[0].id
    assert compose(space, r0, [r0]).hash == r0.hash
