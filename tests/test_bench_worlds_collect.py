"""bench/worlds_collect.py --design-budget keeps the designs tried for the budget target as data
(bench/worlds.json), and docs/figures_search.py renders them: every variant against the first per
world, on the worlds both ran (a variant stopped early is compared on what it finished), with the
harmful moves it made. Checked on hand-made job logs whose figures are worked out by hand."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "docs"))

import figures_search  # noqa: E402
import worlds_collect  # noqa: E402


def job(draw: int, gain: float, rollouts: int, proposals: int = 3, default: dict | None = None,
        gepa: float | None = 0.0, harmful: int = 0) -> dict:
    rows = {"default": {"rollouts": rollouts, "gain_search": gain, "gain_heldout": gain, "accepted": 1,
                        "harmful": harmful, "rounds": 3}}
    if gepa is not None:
        rows["gepa"] = {"rollouts": rollouts, "gain_search": gepa, "gain_heldout": gepa, "accepted": 1, "harmful": 0,
                        "rounds": 6}
    return {"env": "retail", "profile": f"draw:{draw}", "rho": 0.5, "seed": 0, "sizes": {"search": 64, "heldout": 64},
            "rows": rows, "wall": 1.0, "r0": [0.4, 0.4], "settings": {"rounds": 6, "proposals": proposals, "default": default or {},
                                       "max_rollouts": 486}}


def folder(tmp_path: Path, name: str, jobs: list[dict]) -> Path:
    path = tmp_path / name
    path.mkdir()
    (path / "jobs.jsonl").write_text("".join(json.dumps(j) + "\n" for j in jobs))
    return path


def test_the_designs_tried_at_a_budget_are_kept_and_rendered(tmp_path, monkeypatch):
    shipped = folder(tmp_path, "k3", [job(d, g, 430, gepa=0.05) for d, g in ((0, 0.10), (1, 0.20), (2, 0.00))])
    narrow = folder(tmp_path, "k2", [job(d, g, 440, proposals=2, gepa=None, harmful=h)  # stopped after 2 worlds
                                     for d, g, h in ((0, 0.15, 0), (1, 0.10, 1))])
    gate = folder(tmp_path, "g2", [job(d, g, 450, default={"gate": 2.0}, gepa=None) for d, g in ((0, 0.1), (1, 0.2), (2, 0.0))])
    report = folder(tmp_path, "report", [job(1000, 0.1, 900)])
    design = folder(tmp_path, "design", [job(0, 0.1, 900)])
    out = tmp_path / "worlds.json"
    argv = ["worlds_collect.py", "--report", str(report), "--design", f"A={design}",
            "--design-budget", f"K3={shipped}", f"K2={narrow}", f"gate2={gate}", "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)  # runs of older code without the defaults that code had: refused
    with pytest.raises(SystemExit) as refused:
        worlds_collect.main()
    assert refused.value.code == 2 and not out.exists()
    monkeypatch.setattr(sys, "argv", [*argv, "--design-budget-defaults", "design=halving,gate=4,move_p=0.5,tie_tasks=0"])
    worlds_collect.main()
    data = json.loads(out.read_text())["design_budget"]
    assert data["draws"] == "0-2" and data["max_rollouts"] == 486 and list(data["variants"]) == ["K3", "K2", "gate2"]
    assert "proposals=2" in data["variants"]["K2"]["options"] and "proposals" not in data["variants"]["K3"]["options"]
    assert "gate=2" in data["variants"]["gate2"]["options"] and "tie_tasks=0" in data["variants"]["K3"]["options"]
    monkeypatch.setattr(figures_search, "WORLDS_FILE", out)
    rows = {line.split(" | ")[0].split("(")[-1].rstrip(")"): line for line in figures_search.worlds_budget().splitlines()
            if line.startswith("| `")}
    assert "| 3 | +0.100 " in rows["K3"] and "— (the reference)" in rows["K3"] and "| 0/9 |" in rows["K3"]
    # K2 ran draws 0 and 1 only: +0.15 - 0.10 and +0.10 - 0.20, mean -0.025; one better, one worse; 1 harmful
    assert "| 2 | +0.125 " in rows["K2"] and "-0.025 [" in rows["K2"] and "1 / 0 / 1" in rows["K2"]
    assert "| 1/6 |" in rows["K2"]
    assert "+0.000 [+0.000, +0.000]; 0 / 3 / 0" in rows["gate2"]  # level in every world
    assert "GEPA on K3's rollouts | 3 | +0.050" in figures_search.worlds_budget()


def test_the_default_before_its_last_change_is_kept_apart_and_named_by_the_code_that_ran_it(tmp_path, monkeypatch):
    """The default before the tie-break, on the same report draws: its own block, named by the options of
    the code that ran it (a job records only the options it was given), with the paper's rows borrowed
    from the reference run; the report read against this code's defaults."""
    def report_job(draw, gain, default=None):
        j = job(draw, gain, 900, default=default, gepa=0.05)
        j["settings"]["max_rollouts"] = 973
        return j
    reference = [report_job(d, 0.1) for d in (1000, 1001)]
    for j in reference:
        j["rows"]["paper"] = {**j["rows"]["default"], "rollouts": 2432, "gain_heldout": 0.2, "gain_search": 0.2}
    ref = folder(tmp_path, "ref", reference)
    report = folder(tmp_path, "report", [report_job(d, g) for d, g in ((1000, 0.2), (1001, 0.1))])
    before = folder(tmp_path, "before", [report_job(d, 0.1) for d in (1000, 1001)])
    design = folder(tmp_path, "design", [job(0, 0.1, 900)])
    out = tmp_path / "worlds.json"
    monkeypatch.setattr(sys, "argv", ["worlds_collect.py", "--report", str(report), "--reference", str(ref),
                                      "--design", f"A={design}", "--before", str(before), "--before-defaults",
                                      "design=halving,gate=4,move_p=0.5,tie_tasks=0", "--out", str(out)])
    worlds_collect.main()
    data = json.loads(out.read_text())
    shipped = worlds_collect.shipped_defaults()
    assert f"tie_tasks={shipped['tie_tasks']}" in data["report"]["default"] and shipped["tie_tasks"] != "0"
    assert "tie_tasks=0" in data["before"]["default"] and "before_rounds" not in data
    assert data["before"]["borrowed"] == ["paper"] and data["before"]["max_rollouts"] == 973
    monkeypatch.setattr(figures_search, "WORLDS_FILE", out)
    text = figures_search.worlds_before()
    assert text.startswith("```text\nThe default before the tie-break: ") and "tie_tasks=0" in text.splitlines()[1]
    paper = next(line for line in text.splitlines() if line.startswith("paper "))
    default = next(line for line in text.splitlines() if line.startswith("default "))
    assert "+0.200" in paper and "+0.100" in default  # the default before, over the two worlds
    report_text = figures_search.worlds_report()
    assert "+0.150" in next(line for line in report_text.splitlines() if line.startswith("default "))
