"""bench/terminal_power.py: the paired gains (joint, strict SA, solve) from measured outcomes, the
default's screen, one round of the `promote` design and its move probability, on hand-computed
cases and on generated outcome tables."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

from terminal_power import Outcomes, move_probability, one_round, outcome_string, screen_pairs  # noqa: E402

from harnessx.search.explore import ExploreSettings  # noqa: E402


def record(r0: list[str], edit: list[str], search_feasible: list[bool], heldout_feasible: list[bool],
           seeds: int = 2) -> dict:
    """A measured file's record: tasks s0.. then h0.., one string of `seeds` characters per task."""
    return {"world": "w", "epochs": seeds, "seeds": list(range(seeds)), "pairs": [],
            "tasks": {"search": [[f"s{i}", f] for i, f in enumerate(search_feasible)],
                      "heldout": [[f"h{i}", f] for i, f in enumerate(heldout_feasible)]},
            "outcomes": {"R0": "".join(r0), "E": "".join(edit)}}


# search: s0 blocked, s1 feasible; held-out: h0 blocked, h1 feasible; two seeds per task
HAND = record(r0=["01", "11", "00", "1-"], edit=["11", "10", "10", "11"],
              search_feasible=[False, True], heldout_feasible=[False, True])


def test_gain_by_hand():
    data = Outcomes.of(HAND)
    # s0: (1-0 + 1-1)/2 = +0.5 (strict SA); s1: (1-1 + 0-1)/2 = -0.5 (solve); joint: their mean, 0
    assert data.gain("E", "search", "strict_sa") == (0.5, 0.5, 0.5, 1)
    assert data.gain("E", "search", "solve") == (-0.5, -0.5, -0.5, 1)
    assert data.mean_gain("E", "search") == 0.0
    # h1's second seed is invalid for R0: only seed 0 is paired (1 - 1 = 0); h0: +0.5; joint +0.25
    assert data.mean_gain("E", "heldout") == 0.25
    mean, lo, hi, n = data.gain("E", "heldout")
    assert (mean, n) == (0.25, 2) and lo == 0.0 and hi == 0.5  # the bootstrap over two tasks: 0, 0.25 or 0.5


def test_outcome_string_marks_invalid_and_missing():
    scores = [SimpleNamespace(task_id="a", seed=0, valid=True, feasible=False, strict_sa=True, solved=None),
              SimpleNamespace(task_id="a", seed=1, valid=False, feasible=False, strict_sa=None, solved=None),
              SimpleNamespace(task_id="b", seed=0, valid=True, feasible=True, strict_sa=None, solved=False)]
    assert outcome_string(scores, ["a", "b"], [0, 1]) == "1-0-"


def test_screen_pairs_by_hand():
    # screen 8 = 4 pairs, ceil(0.75 * 4) = 3 of them where R0 failed (pairs 1, 3, 4), then the first other (0)
    failed = np.array([False, True, False, True, True, False, True, True, False, False])
    assert screen_pairs(failed, 8).tolist() == [0, 1, 3, 4]


@given(st.lists(st.booleans(), min_size=1, max_size=40), st.integers(2, 40))
def test_screen_pairs_class(failed, screen):
    """Any failure pattern: at most screen/2 pairs, no pair twice, as many failed pairs as the share allows."""
    failed = np.array(failed)
    got = screen_pairs(failed, screen).tolist()
    assert len(got) == len(set(got)) <= math.ceil(screen / 2)
    want = min(math.ceil(0.75 * screen / 2), int(failed.sum()))
    assert sum(bool(failed[i]) for i in got) >= want
    assert len(got) == min(math.ceil(screen / 2), failed.size)


@pytest.mark.parametrize("edit, r0, end", [
    ([0, 0, 1, 1, 0, 1, 0, 1], [0, 0, 1, 1, 0, 1, 0, 1], "rung"),   # a copy ties the screen, leads nowhere
    ([0, 0, 0, 1, 0, 1, 0, 1], [1, 0, 1, 1, 0, 1, 0, 1], "screen"),  # behind on the screen
    ([1, 0, 1, 1, 0, 1, 0, 1], [0, 0, 1, 1, 0, 1, 0, 1], "p"),       # one task of 8 ahead: sign-flip p = 1/2
    ([1] * 8, [0] * 8, "moved"),                                       # eight of 8: p = 1/256
])
def test_one_round_by_hand(edit, r0, end):
    assert one_round(np.array(edit, float), np.array(r0, float), ExploreSettings()) == end


def test_one_round_rung_stop_past_screen():
    # 40 tasks, 20 pairs; R0 fails the blocked task of pairs 10..19, so the screen (16 tasks) is
    # pairs 10..15 (failed) and 0, 1 (the next of the order); rung 1 is the first 32 tasks
    r0 = np.ones(40)
    r0[20:40:2] = 0
    edit = r0.copy()
    edit[20:32:2] = 1  # wins pairs 10..15: +6 on the screen
    edit[4:20] = 0     # loses tasks 4..19, off the screen: -16 + 6 on the rung's 32 tasks
    assert one_round(edit, r0, ExploreSettings()) == "rung"
    edit[4:20] = 1
    edit[0] = 0        # one loss on the screen, six wins: a lead at every stage, sign-flip p = 8/128
    assert one_round(edit, r0, ExploreSettings()) == "moved"


def _table(r0: str, edit: str, n_blocked: int, n_feasible: int) -> Outcomes:
    feasible = [False] * n_blocked + [True] * n_feasible
    return Outcomes.of(record([r0] * len(feasible), [edit] * len(feasible), feasible, [False, True], seeds=1))


def test_move_probability_extremes():
    never = move_probability(_table("1", "1", 4, 4), "E", 8, sims=20)
    always = move_probability(_table("0", "1", 4, 4), "E", 8, sims=20)
    assert never["moved"] == 0.0 and never["rung"] == 1.0
    assert always["moved"] == 1.0
    assert all(math.isclose(sum(p.values()), 1.0) for p in (never, always))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("01-"), st.sampled_from("01-")), min_size=4, max_size=12))
def test_gain_class(cells):
    """Generated outcome tables (one seed): the joint gain is the mean paired difference over the
    tasks both harnesses have valid, the CI holds it, n counts those tasks."""
    r0, edit = [a for a, _ in cells], [b for _, b in cells]
    feasible = [i % 2 == 1 for i in range(len(cells))]
    data = Outcomes.of(record(r0, edit, feasible, [False], seeds=1) | {
        "outcomes": {"R0": "".join(r0) + "0", "E": "".join(edit) + "0"}})
    both = [(int(b), int(a)) for a, b in cells if "-" not in (a, b)]
    mean, lo, hi, n = data.gain("E", "search")
    assert n == len(both)
    if both:
        assert math.isclose(mean, sum(e - r for e, r in both) / len(both))
        assert lo - 1e-12 <= mean <= hi + 1e-12


def test_report_refuses_a_file_that_is_not_a_measurement(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{}", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(BENCH / "terminal_power.py"), "report", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and str(bad) in proc.stderr and "records" in proc.stderr
