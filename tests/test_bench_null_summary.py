"""bench/search_null.py's summary (printed and written as JSON): totals over replicates with their n."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from search_null import summarize  # noqa: E402

from harnessx.stats import wilson  # noqa: E402


def replicate(greedy: int, certified: int = 0) -> dict:
    rule = {"rounds": 0, "ends_on_copy": 0, "rollouts": 100, "certified": 0}
    return {"greedy": {"rounds": greedy, "ends_on_copy": int(greedy > 0), "rollouts": 120, "certified": certified},
            "paired": dict(rule), "default": dict(rule),
            "gepa": {"ends_on_copy": 1, "admitted": 3, "proposed": 9, "rollouts": 50, "certified": 0}}


def test_null_summary_counts_rounds_and_searches_with_their_wilson_intervals():
    args = argparse.Namespace(seeds=2, rounds=8, sources=10, proposals=3, gate=None, objective="joint", model="sim/baseline",
                              workers=2, out="x.json")
    s = summarize([replicate(3, certified=1), replicate(0)], args)
    greedy = s["rules"]["greedy"]
    assert (s["rounds"], s["searches"]) == (16, 2)
    assert greedy["accepted_rounds"] == 3 and greedy["rate"] == pytest.approx(3 / 16)
    assert greedy["ci"] == pytest.approx(list(wilson(3, 16)))
    assert (greedy["ends_on_copy"], greedy["ends_rate"], greedy["rollouts_per_search"]) == (1, 0.5, 120)
    assert (greedy["certified"], greedy["certified_rate"]) == (1, 0.5)
    assert greedy["certified_ci"] == pytest.approx(list(wilson(1, 2)))
    assert s["gepa"] == {"ends_on_copy": 2, "ends_rate": 1.0, "ends_ci": pytest.approx(list(wilson(2, 2))),
                         "rollouts_per_search": 50.0, "admitted": 6, "proposed": 18, "certified": 0,
                         "certified_rate": 0.0, "certified_ci": pytest.approx(list(wilson(0, 2)))}
    assert "out" not in s["settings"] and s["settings"]["rounds"] == 8
    assert json.loads(json.dumps(s))["rules"]["default"]["accepted_rounds"] == 0


def test_a_null_replicate_ends_each_search_with_its_claim():
    """Smoke: one tiny replicate runs every rule and GEPA to their claims on the held-out toy split."""
    from search_null import run_replicate

    args = argparse.Namespace(seeds=1, rounds=1, sources=3, proposals=2, gate=None, move_p=None, objective="joint", model="sim/baseline",
                              alpha=0.05, workers=1, out="x.json")
    with tempfile.TemporaryDirectory() as tmp:
        out = run_replicate((0, args, tmp))
    assert set(out) == {"greedy", "paired", "default", "gepa"}
    assert all(out[name]["certified"] in (0, 1) for name in out)
