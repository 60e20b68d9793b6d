"""bench/search_efficiency.py runs the shipped default by name (bare: paper, GEPA and the default), and
`efficiency_report.py --targets default` judges the default's targets: a line per target and group
ending in met or missed, then `targets: N met, M missed`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from efficiency_report import summarize  # noqa: E402
from efficiency_targets import target_report  # noqa: E402

BENCH = Path(__file__).resolve().parents[1] / "bench"


def row(rollouts, held, harmful=0, rounds=6):
    return {"rollouts": rollouts, "gain_search": held, "gain_heldout": held, "accepted": 2, "harmful": harmful,
            "rounds": rounds}


def group(profile, rows_by_seed, env="retail"):
    return summarize([{"env": env, "profile": profile, "rho": 0.5, "seed": seed, "sizes": {"search": 128, "heldout": 64},
                       "rows": rows, "wall": 1.0, "r0": [0.4, 0.4]} for seed, rows in enumerate(rows_by_seed)])


@pytest.mark.slow
def test_the_bench_knows_the_default_and_runs_it_bare():
    import efficiency_args as options
    import search_efficiency as bench
    assert "default" in options.STRATEGIES and options.BARE == ("paper", "default", "gepa")
    assert bench.RULES["default"] == "default" and "default" in options.CANDIDATES
    out = subprocess.run([sys.executable, str(BENCH / "search_efficiency.py"), "--strategies", "paper,nope"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "nope" in out.stderr and "default" in out.stderr


def test_each_target_and_group_is_met_or_missed_and_counted():
    # baseline: default 900 rollouts +0.20 (seeds +0.19, +0.21); GEPA 950 rollouts +0.18; paper 2400, +0.21:
    #   1 met (0.20 >= 0.18 at 900 <= 950); 2 met (0.20 >= 0.189 at 900 <= 960); 3 met; 4 met (0/12)
    baseline = group("baseline", [{"paper": row(2400, 0.21), "default": row(900, 0.19), "gepa": row(950, 0.18)},
                                  {"paper": row(2400, 0.21), "default": row(900, 0.21), "gepa": row(950, 0.18)}])
    # harmful: default 1000 rollouts +0.10, 1 harmful round of 12; GEPA 800 rollouts +0.12; paper 2400 +0.15:
    #   1 missed; 2 missed (0.10 < 0.135, 1000 > 960); 3 met; 4 missed (1/12 > 5%)
    harmful = group("harmful", [{"paper": row(2400, 0.15), "default": row(1000, 0.10, harmful=1), "gepa": row(800, 0.12)},
                                {"paper": row(2400, 0.15), "default": row(1000, 0.10), "gepa": row(800, 0.12)}])
    null = {"searches": 20, "rules": {"default": {"certified": 0, "certified_rate": 0.0, "certified_ci": [0.0, 0.161]}}}
    lines = target_report([baseline, harmful], "default", null)
    assert all(line.endswith((": met", ": missed")) for line in lines[:-1]) and len(lines) == 10
    verdicts = [line.rsplit(": ", 1)[1] for line in lines[:-1]]
    assert verdicts == ["met"] * 4 + ["missed", "missed", "met", "missed"] + ["met"]
    assert "1 held-out gain >= GEPA's at <= its rollouts: +0.200 [+0.190, +0.210] vs +0.180" in lines[0]
    assert "vs 0.9 x +0.150 = +0.135, at 1000 vs 0.4 x 2400 = 960 rollouts: missed" in lines[5]
    assert "4 a harmful move in <= 5% of rounds: 1/12 rounds = 0.083: missed" in lines[7]
    assert "5 claim certified in <= 5% of searches: 0/20 = 0.000" in lines[8]
    assert lines[-1] == "targets: 6 met, 3 missed"


def test_the_report_cli_prints_the_targets(tmp_path):
    g = group("baseline", [{"paper": row(2400, 0.21), "default": row(900, 0.2), "gepa": row(950, 0.18)}])
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"settings": {}, "groups": [g]}))
    out = subprocess.run([sys.executable, str(BENCH / "efficiency_report.py"), str(results), "--targets", "default"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip().splitlines()[-1] == "targets: 4 met, 0 missed"
    bad = subprocess.run([sys.executable, str(BENCH / "efficiency_report.py"), str(results), "--targets", "default",
                          "--null", str(tmp_path / "missing.json")], capture_output=True, text=True)
    assert bad.returncode == 2 and "missing.json" in bad.stderr
