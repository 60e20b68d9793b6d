"""What bench/search_efficiency.py keeps of its jobs (a log a stopped run resumes from, refused when
its settings differ) and how it summarises them (means, ratios to the paper's protocol, the plot)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from efficiency_report import JobLog, frontier_plot, job_key, report, summarize  # noqa: E402

from harnessx.errors import InputError  # noqa: E402

SETTINGS = {"rounds": 6, "strategies": ["paper", "default"], "default": {}}


def row(rollouts: int, gain: float, held: float, accepted: int = 1, harmful: int = 0, rounds: int = 6) -> dict:
    return {"rollouts": rollouts, "gain_search": gain, "gain_heldout": held, "accepted": accepted,
            "harmful": harmful, "rounds": rounds}


def job(seed: int, rows: dict, env: str = "retail", rho: float = 0.5) -> dict:
    return {"env": env, "profile": "harmful", "rho": rho, "seed": seed, "sizes": {"search": 128, "heldout": 64},
            "rows": rows, "wall": 10.0, "r0": [0.4, 0.5]}


def test_a_log_gives_back_its_jobs_by_key(tmp_path):
    log = JobLog(tmp_path / "jobs.jsonl", SETTINGS)
    assert log.done() == {}
    log.add(job(0, {"paper": row(2432, 0.2, 0.1)}))
    log.add(job(1, {"paper": row(2432, 0.1, 0.1)}))
    done = JobLog(tmp_path / "jobs.jsonl", SETTINGS).done()
    assert set(done) == {job_key("retail", "harmful", 0.5, 0), job_key("retail", "harmful", 0.5, 1)}
    assert done[job_key("retail", "harmful", 0.5, 1)]["rows"]["paper"]["gain_search"] == 0.1


def test_a_log_with_other_settings_is_refused_with_its_file_line_and_field(tmp_path):
    JobLog(tmp_path / "jobs.jsonl", SETTINGS).add(job(0, {"paper": row(2432, 0.2, 0.1)}))
    with pytest.raises(InputError, match=r"jobs.jsonl: line 1: settings.rounds = 6 \(expected 4"):
        JobLog(tmp_path / "jobs.jsonl", {**SETTINGS, "rounds": 4}).done()
    with pytest.raises(InputError, match=r"settings.default"):
        JobLog(tmp_path / "jobs.jsonl", {**SETTINGS, "default": {"screen": 12.0}}).done()


def test_a_last_line_cut_short_is_dropped_and_the_next_job_starts_a_clean_line(tmp_path):
    path = tmp_path / "jobs.jsonl"
    log = JobLog(path, SETTINGS)
    log.add(job(0, {"paper": row(2432, 0.2, 0.1)}))
    log.add(job(1, {"paper": row(2432, 0.1, 0.1)}))
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][:50])  # killed while writing the second job
    assert list(log.done()) == [job_key("retail", "harmful", 0.5, 0)]
    log.add(job(1, {"paper": row(2432, 0.1, 0.1)}))
    assert len(log.done()) == 2
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_an_unreadable_line_before_the_last_is_an_error(tmp_path):
    path = tmp_path / "jobs.jsonl"
    JobLog(path, SETTINGS).add(job(0, {"paper": row(2432, 0.2, 0.1)}))
    path.write_text("{not json\n" + path.read_text())
    with pytest.raises(InputError, match="line 1"):
        JobLog(path, SETTINGS).done()


def test_summaries_are_means_over_seeds_and_ratios_to_the_paper():
    group = [job(0, {"paper": row(2400, 0.20, 0.10, 5, 1), "default": row(800, 0.10, 0.05, 2, 0)}),
             job(1, {"paper": row(2400, 0.10, 0.30, 4, 0), "default": row(600, 0.05, 0.15, 1, 0, rounds=5)})]
    s = summarize(group)
    default = s["strategies"]["default"]
    assert default["mean"]["rollouts"] == 700 and default["mean"]["gain_search"] == pytest.approx(0.075)
    assert default["mean"]["per_1k"] == pytest.approx((0.125 + 0.05 / 0.6) / 2)
    point, lo, hi = default["ratio_to_paper"]["rollouts"]
    assert point == pytest.approx(700 / 2400) and lo <= point <= hi
    assert default["ratio_to_paper"]["gain_search"][0] == pytest.approx(0.075 / 0.15)
    assert default["ratio_to_paper"]["gain_heldout"][0] == pytest.approx(0.10 / 0.20)
    assert (default["harmful"], default["accepted"], default["rounds"]) == (0, 3, 11)
    assert s["strategies"]["paper"]["harmful"] == 1 and s["seeds"] == [0, 1]
    lo, hi = default["ci"]["gain_search"]
    assert 0.05 <= lo <= 0.075 <= hi <= 0.10


def test_the_report_prints_each_strategy_with_its_harmful_count(capsys):
    group = [job(seed, {"paper": row(2400, 0.2, 0.1, 5, 1), "gepa": row(700, 0.1, 0.1, 2, 0)}) for seed in (0, 1)]
    report(summarize(group), "R0 + 6 x 3")
    text = capsys.readouterr().out
    assert "2 seeds" in text and "2/10" in text and "0/4" in text
    assert "n/a" in text  # GEPA has no rounds, so no harmful-rounds rate


def test_the_frontier_plot_is_a_png_with_a_panel_per_group(tmp_path):
    groups = [summarize([job(seed, {"paper": row(2400, 0.2, 0.1), "default": row(800, 0.1, 0.1)}, rho=rho)
                         for seed in (0, 1, 2)]) for rho in (0.5, 1.0)]
    path = frontier_plot(groups, tmp_path / "frontier.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from matplotlib.image import imread
    height, width = imread(path).shape[:2]
    assert width > height  # two panels side by side


def test_markdown_rows_are_the_readme_table_format():
    from efficiency_report import markdown_rows
    group = [job(0, {"paper": row(2400, 0.20, 0.10, 5, 1), "default": row(800, 0.10, 0.05, 2, 0)}),
             job(1, {"paper": row(2400, 0.20, 0.10, 4, 0), "default": row(800, 0.10, 0.05, 1, 0)})]
    paper, default = markdown_rows([summarize(group)])
    # paper: its own ratios, no CI; per 1k = 1000 x 0.2 / 2400 = 0.083; harmful 1 of 9 accepted, in 1 of 12 rounds
    assert paper == "| harmful | ρ 0.5 | paper (greedy) | 2400 (1.00) | +0.200 (1.00) | +0.100 (1.00) | 0.083 (1.00) | 1/9 | 1/12 |"
    # default: identical seeds, so each ratio's CI is the point itself (800 / 2400 = 0.33, 0.10 / 0.20 = 0.50)
    assert default == ("| harmful | ρ 0.5 | default | 800 (0.33 [0.33, 0.33]) | +0.100 (0.50 [0.50, 0.50]) | "
                     "+0.050 (0.50 [0.50, 0.50]) | 0.125 (1.50 [1.50, 1.50]) | 0/3 | 0/12 |")


def test_the_report_refuses_a_misspelt_candidate_and_malformed_groups_with_the_file_named(tmp_path):
    import subprocess
    script = Path(__file__).resolve().parents[1] / "bench" / "efficiency_report.py"
    good = tmp_path / "results.json"
    good.write_text(json.dumps({"settings": {}, "groups": [summarize([job(0, {"paper": row(2400, 0.2, 0.1)})])]}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"groups": 3}))
    run = lambda *a: subprocess.run([sys.executable, str(script), *a], capture_output=True, text=True)  # noqa: E731
    typo = run(str(good), "--targets", "sequentil")
    assert typo.returncode == 2 and "'sequentil' is not a strategy of" in typo.stderr and "(it has paper)" in typo.stderr
    broken = run(str(bad))
    assert broken.returncode == 2 and f"{bad}: expected the results.json" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_a_ratio_to_gains_that_cancel_over_seeds_is_no_ratio():
    """Gains that cancel over seeds average to zero up to float rounding (+0.1, +0.2, -0.3: 9.3e-18); a
    ratio to that is not a number (the terminal table printed -1.9e14 for one)."""
    from efficiency_report import ratio_ci

    paper = [0.1, 0.2, -0.3]
    assert sum(paper) / 3 != 0.0  # the rounding residue the ratio must not divide by
    point, lo, hi = ratio_ci([0.0, 0.1, 0.0], paper)
    assert all(v != v for v in (point, lo, hi))  # nan
    assert ratio_ci([0.1, 0.2], [0.1, 0.1])[0] == pytest.approx(1.5)


def test_a_ratio_with_no_number_prints_n_a_never_nan():
    """The tables print a ratio to a zero mean as n/a and a CI the bootstrap cannot give as [n/a]
    (the console table printed "nan [nan, nan]" for them)."""
    from efficiency_report import markdown_rows, ratio_text

    assert ratio_text(0.25, float("nan"), float("nan")) == "0.25 [n/a]"
    assert ratio_text(float("nan"), float("nan"), float("nan")) == "n/a [n/a]"
    assert ratio_text(0.5, 0.25, 0.75) == "0.50 [0.25, 0.75]"
    assert ratio_text(float("nan"), 0.0, 0.0, ci=False) == "n/a"
    # the paper gains nothing held-out in either seed: every held-out ratio to it is n/a
    group = [job(s, {"paper": row(2400, 0.2, 0.0), "default": row(800, 0.1, 0.05)}) for s in (0, 1)]
    paper, default = markdown_rows([summarize(group)])
    assert "+0.000 (n/a)" in paper and "+0.050 (n/a [n/a])" in default and "nan" not in paper + default
