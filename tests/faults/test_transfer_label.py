"""The transfer table of an `sa` search: its search-split "joint" is strict SA over blocked tasks
only, so it is never set against the pooled held-out joint (nor its empty solve against held-out solve)."""

from __future__ import annotations

from types import SimpleNamespace

from harnessx.comparison.compare import transfer_rows


def rate(k, n):
    return {"k": k, "n": n, "excluded": 0, "value": k / n if n else None, "ci": [0.0, 1.0]}


def contender(objective: str):
    card = {"strict_sa": rate(10, 16), "relaxed_sa": rate(11, 16), "solve": rate(0, 0),
            "false_abstention": rate(0, 0), "joint": rate(10, 16)}
    run = SimpleNamespace(name="s", config={"objective": objective}, search_scorecard=lambda role, h: card)
    return SimpleNamespace(label="s:selected", role="selected", harness=SimpleNamespace(hash="h"), run=run)


def splits():
    held = {"strict_sa": rate(8, 16), "solve": rate(12, 16), "joint": rate(20, 32)}
    return {"heldout": {"harnesses": {"s:selected": {"metrics": held}}}}


def test_an_sa_search_score_is_not_set_against_the_pooled_heldout_joint():
    [row] = transfer_rows([contender("sa")], splits())
    assert row["metrics"]["joint"]["search"] is None and row["metrics"]["joint"]["delta"] is None
    assert row["metrics"]["solve"]["search"] is None
    assert row["metrics"]["strict_sa"]["delta"] == 8 / 16 - 10 / 16  # like for like: blocked vs blocked
    assert "not comparable" in row["search_source"]


def test_a_joint_search_keeps_its_joint_transfer():
    [row] = transfer_rows([contender("joint")], splits())
    assert row["metrics"]["joint"]["delta"] == 20 / 32 - 10 / 16
