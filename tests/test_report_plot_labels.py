"""The report's plots label a score measured on a subset of the split as such (#44 item 2), read from
the drawn figure itself: each figure is caught as it is saved, its points read back from the plotted
data (which marker holds which value, hollow or filled), and its text from the figure rendered to SVG
with text kept as text. Ledgers are generated: any mix of rounds, values, accepted and screened rows."""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harnessx.report import plots


def svg_text(fig) -> str:
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg")
    return buffer.getvalue()


def hollow(collection) -> bool:
    faces = collection.get_facecolors()
    return len(faces) == 0 or bool(np.all(faces[:, 3] == 0))


def points(collection) -> set[tuple[float, float]]:
    return {(round(float(x), 9), round(float(y), 9)) for x, y in collection.get_offsets()}


rows = st.lists(st.fixed_dictionaries({"round": st.integers(1, 6), "value": st.floats(0, 1),
                                       "accepted": st.booleans(), "screened": st.booleans(),
                                       "tasks": st.integers(1, 200)}), min_size=1, max_size=14)


def ledger_of(generated: list[dict]) -> list[dict]:
    r0 = {"round": 0, "hash": "r0", "objective_value": 0.5, "accepted": True,
          "judged": {"tasks": 256, "of": 256, "screened": False}}
    return [r0] + [{"round": g["round"], "hash": f"h{i}", "objective_value": g["value"], "accepted": g["accepted"],
                    "judged": {"tasks": g["tasks"], "of": 256, "screened": g["screened"]}} for i, g in enumerate(generated)]


@settings(max_examples=40, deadline=None)
@given(generated=rows)
def test_the_search_curve_draws_every_screened_score_hollow_and_labelled_never_on_the_incumbent_line(generated):
    import matplotlib.pyplot as plt

    figures: list = []
    original = plots._save
    plots._save = lambda fig, path, note: figures.append(fig) or path
    try:
        ledger = ledger_of(generated)
        plots.search_curve(ledger, "unused.png", "SIMULATED", "joint")
        (fig,) = figures
        ax = fig.axes[0]
        screened = {(float(r["round"]), round(r["objective_value"], 9)) for r in ledger if r["judged"]["screened"]}
        whole = {(float(r["round"]), round(r["objective_value"], 9)) for r in ledger if not r["judged"]["screened"]}
        labelled = {c.get_label(): c for c in ax.collections}
        filled = set().union(*(points(c) for c in ax.collections if not hollow(c))) if ax.collections else set()
        assert not (screened - whole) & filled, "a screened score is drawn filled, like a whole-split one"
        if screened:
            label = next(k for k in labelled if k.startswith("screened on a subset"))
            assert label == f"screened on a subset, not comparable (n={sum(r['judged']['screened'] for r in ledger)})"
            assert hollow(labelled[label]) and points(labelled[label]) == screened
            if any(r["accepted"] and r["judged"]["screened"] for r in ledger):
                assert any(k.startswith("accepted, screened on a subset") and hollow(c) for k, c in labelled.items())
            assert label in svg_text(fig)  # the legend shows it in the drawn figure
        else:
            assert not any(k.startswith("screened") for k in labelled)
        (line,) = [ln for ln in ax.lines if ln.get_label() == "incumbent (whole split)"]
        on_line = {round(float(y), 9) for y in line.get_ydata() if not np.isnan(y)}
        assert on_line <= {round(r["objective_value"], 9) for r in ledger if not r["judged"]["screened"]}
        expected, value = [], None  # the incumbent's whole-split score after each round; unknown after a
        for rnd in sorted({r["round"] for r in ledger}):  # round that accepted a screened candidate
            last = [r for r in ledger if r["round"] == rnd and r["accepted"]][-1:]
            value = (None if last[0]["judged"]["screened"] else last[0]["objective_value"]) if last else value
            expected.append(value)
        drawn = [None if np.isnan(y) else float(y) for y in line.get_ydata()]
        assert drawn == pytest.approx(expected)
    finally:
        plots._save = original
        for fig in figures:
            plt.close(fig)


@settings(max_examples=40, deadline=None)
@given(flags=st.lists(st.tuples(st.booleans(), st.booleans(), st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=10))
def test_sa_vs_solve_draws_every_screened_candidate_hollow_and_says_how_many(flags):
    import matplotlib.pyplot as plt

    figures: list = []
    original = plots._save
    plots._save = lambda fig, path, note: figures.append(fig) or path
    try:
        candidates = [{"label": f"c{i}", "screened": s, "highlight": h, "strict_sa": {"value": sa, "n": 8},
                       "solve": {"value": so, "n": 8}} for i, (s, h, sa, so) in enumerate(flags)]
        plots.sa_vs_solve(candidates, "unused.png", "SIMULATED")
        (fig,) = figures
        ax = fig.axes[0]
        assert len(ax.collections) == len(candidates)
        for c, drawn in zip(candidates, ax.collections):
            assert hollow(drawn) == c["screened"], c
        count = sum(c["screened"] for c in candidates)
        title = ax.get_title()
        assert (f"hollow: {count} screened on a subset" in title) == (count > 0)
        if count:
            assert f"{count} screened on a subset" in svg_text(fig)
    finally:
        plots._save = original
        for fig in figures:
            plt.close(fig)
