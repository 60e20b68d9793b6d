"""Every FeasiGen table says what it excluded and why, apart from what is n/a (no trial of that kind)."""

from __future__ import annotations

from harnessx.feasigen.report import excluded_note, tables


def _system(excluded: dict) -> dict:
    rate = {"k": 1, "n": 2, "value": 0.5, "ci": [0.1, 0.9], "excluded": sum(excluded.values())}
    avg = {"value": 0.5, "ci": [0.1, 0.9], "datasets": 1}
    return {"simulated": True, "excluded": excluded, "evaluated": True,
            "datasets": {"retail": {"sr": rate, "fcr": rate, "fass": rate, "false_continue_count": 1,
                                    "completed_infeasible": rate, "false_stop": rate,
                                    "tokens": {"early_stop": {"mean": None}, "task_failure": {"mean": None}}}},
            "avg": {"sr": avg, "fcr": avg, "fass": avg}}


def test_each_table_names_its_exclusions_and_their_reasons():
    data = {"systems": {"a": _system({"model_failure": 2, "env_failure": 1}), "b": _system({})},
            "multi_agent": {}, "pareto": {"points": {}, "non_dominated": [], "convex": []}}
    for table in tables(data):
        note = next((n for n in table.notes if n.startswith("excluded rollouts")), None)
        assert note is not None, table.title
        assert "a: 3 (env_failure 1, model_failure 2)" in note and "b: 0" in note and "n/a: no trial" in note


def test_nothing_excluded_says_zero_not_na():
    assert excluded_note([("x", {"excluded": {}})]).startswith("excluded rollouts (invalid, left out of every rate), "
                                                                "and why: x: 0.")
