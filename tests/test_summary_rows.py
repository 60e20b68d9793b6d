"""The search summary's rows say what they count, each with its n: KAPRO's and CF's solve named as
their pass rate and accuracy, KAPRO's Acc means as means (not "23.0/40"), ASA's pairs and joint clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnessx.cli.common import console
from harnessx.cli.search_cmd import print_summary
from harnessx.scoring.rate import MeanValue, Rate


def mean(total: float, n: int) -> dict:
    return MeanValue(total, n, sum_sq=total).to_dict()  # 0/1 values: sum of squares = sum


def card(values: dict | None = None, blocked: bool = True, **rates: Rate) -> dict:
    out = {k: Rate(0, 0).to_dict() for k in ("strict_sa", "solve", "false_abstention", "joint")}
    if blocked:
        out["strict_sa"] = Rate(3, 10).to_dict()
    return out | {k: r.to_dict() for k, r in rates.items()} | {"values": values or {}}


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line per row (rich reads it on every print)


def printed(r0: dict, selected: dict, objective: str = "joint") -> str:
    summary = {"search": "s", "model": "sim/baseline", "simulated": True, "objective": objective,
               "r0": {"scorecard": r0}, "selected": {"scorecard": selected, "round": 1},
               "curve": [], "rollouts": 0, "cost_usd": 0.0, "wall_s": 0, "note": ""}
    with console.capture() as capture:
        print_summary(summary, Path("runs/s"))
    return capture.get()


def test_kapro_rows_are_its_pass_rate_and_acc_means():
    values = {"j_know": mean(23.0, 40), "j_act": mean(20.0, 40), "kas_avg": mean(22.0, 40)}
    text = printed(card(values, blocked=False, solve=Rate(17, 40)), card(values, blocked=False, solve=Rate(19, 40)),
                   objective="kas")
    assert "pass rate (KAPRO: judged solved)" in text and "17/40" in text
    assert "joint (pooled)" not in text and "strict SA" not in text and "solve (feasible)" not in text
    assert "23.0/40" not in text and "0.575 [" in text and "(n=40)" in text


def test_cf_solve_is_its_accuracy():
    values = {"cf": mean(5.0, 12)}
    text = printed(card(values, blocked=False, solve=Rate(7, 12)), card(values, blocked=False, solve=Rate(8, 12)),
                   objective="cf")
    assert "accuracy (CF: correct answer)" in text and "joint (pooled)" not in text


def test_asa_rows_add_joint_clean_and_pairs_and_tolerate_an_older_summary():
    selected = card(joint=Rate(13, 20), joint_clean=Rate(3, 20), pairs=Rate(0, 10))
    text = printed(card(joint=Rate(7, 20)), selected)  # R0 recorded before these rates existed
    assert "joint, clean (no false abstention)" in text and "3/20 15.0%" in text
    assert "pairs right both ways" in text and "0/10 0.0%" in text and "n/a (n=0)" in text
