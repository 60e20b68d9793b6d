"""The blanket-defer baseline: what deferring at once on every task scores on a suite, printed next
to a real model's figures (the starter suite: 0 strict SA, since its locks show only through a tool)."""

from __future__ import annotations

from harnessx.envs.starter import starter_tasks

HELDOUT = [t for t in starter_tasks() if t.split == "heldout"]  # 10 sources: 5 locked traps, 5 missing settings


def test_blanket_defer_baseline_gets_no_strict_sa_on_the_starter_suite():
    from harnessx.scoring import baseline

    base = baseline.blanket_defer(HELDOUT)
    assert [(base[m]["k"], base[m]["n"]) for m in ("strict_sa", "solve", "joint", "pairs")] == \
        [(0, 10), (0, 10), (0, 20), (0, 10)]
    # the same traps stating their lock in the request (spec evidence): the canned echo passes on all 5,
    # which is the artefact this baseline line exists to show next to a real model's figures
    from harnessx.tasks import Evidence

    stated = [t.model_copy(update={"instruction": t.instruction + f' The "{t.metadata["locked"][0]}" setting is '
                                                  'locked.', "evidence": Evidence(where="spec")})
              if t.blocker is not None and t.blocker.id == "locked" else t for t in HELDOUT]
    assert baseline.blanket_defer(stated)["strict_sa"]["k"] == 5


def test_a_real_model_table_names_the_blanket_defer_baseline():
    from harnessx.report.tables import compare_tables
    from harnessx.scoring.baseline import blanket_defer

    block = {"split": "heldout", "n_blocked": 10, "n_feasible": 10, "n_sources": 10, "differences": [],
             "harnesses": {"A1": {"metrics": {}, "per_family": {}, "exclusions": []}}, "values": {},
             "benchmarks": {}, "blanket_defer": blanket_defer(HELDOUT)}
    data = {"splits": {"heldout": block}, "seeds": [0], "n_resamples": 100, "transfer": [], "simulated": False}
    [table] = compare_tables(data)
    [note] = [n for n in table.notes if n.startswith("blanket-defer baseline")]
    assert "strict SA 0/10 0.0%" in note and "joint 0/20" in note
    assert not any("blanket" in n for n in compare_tables({**data, "simulated": True})[0].notes)
