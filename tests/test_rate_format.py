"""Every printed rate carries k/n and a 95% interval; every paired table's title names the contrast its
columns read. Cells against hand-computed (and published) figures, then the tables the CLI really
prints on the simulated agent (toy suite), checked with regular expressions over the rendered text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harnessx.report.cells import (contrast, mean_sd_cell, paired_title, rate_cell, replicate_ci,
                                   unpaired_diff_cell, value_cell)
from harnessx.scoring.rate import MeanValue, Rate, rate_text
from harnessx.stats import wilson

RATE = r"\d+/\d+ \d+\.\d% \[\d+\.\d, \d+\.\d\](, \d+ excl\.)?"
NA = r"n/a \(n=0\)(, \d+ excl\.)?"
OLD_RATE = re.compile(r"\d+\.\d%\s*\(\d+/\d+\)|\d+/\d+ \(\d+\.\d%\)")  # "31.2% (20/64)" or "20/64 (31.2%)"
REPLICATES = r"-?\d+\.\d ± \d+\.\d \[-?\d+\.\d, -?\d+\.\d\] \(\d+ reps(, n=\d+(–\d+)? each)?\)"
DIFF = r"[+-]\d+\.\d pp \[[+-]\d+\.\d, [+-]\d+\.\d\] \(n=\d+, \d+ src\)"


def rate(k: int, n: int, excluded: int = 0) -> dict:
    return Rate(k, n, excluded).to_dict()


# --- cells, hand-computed ------------------------------------------------------------------------
def test_a_rate_prints_k_over_n_its_percentage_and_the_wilson_interval():
    # Wilson 20/64: p = .3125, z = 1.96: centre .3235, half .1106 -> [21.2, 43.4]
    assert rate_text(20, 64) == "20/64 31.2% [21.2, 43.4]" == str(Rate(20, 64)) == rate_cell(rate(20, 64))
    assert not OLD_RATE.search(str(Rate(20, 64)))
    assert str(Rate(3, 8, 2)) == "3/8 37.5% [13.7, 69.4], 2 excl." and re.fullmatch(RATE, str(Rate(3, 8, 2)))
    assert rate_cell(rate(0, 0, 4)) == "n/a (n=0), 4 excl." and str(Rate(0, 0)) == "0/0 (n/a)"


def test_a_mean_prints_its_interval_and_n():
    v = MeanValue.of([1.0, 0.0, 1.0, 1.0, None]).to_dict()  # mean .75, sample SD .5, half 1.96 * .5 / 2 = .49
    assert value_cell(v) == "0.750 [0.260, 1.000] (n=4, 1 excl.)"
    assert value_cell(v, signed=True).startswith("+0.750 [+0.260, +1.000]")


def test_the_transfer_difference_carries_newcombes_interval():
    # Newcombe (1998), method 10, example (56/70 vs 48/80): +0.200, 95% CI [0.0524, 0.3339]
    a, b = rate(56, 70), rate(48, 80)
    assert unpaired_diff_cell(a, b) == "+20.0 pp [+5.2, +33.4] (n=70 vs 80)"
    assert unpaired_diff_cell(None, b) == "n/a"


def test_a_mean_over_replicates_carries_a_t_interval_and_each_replicates_n():
    lo, hi = replicate_ci(50.0, 10.0, 4, 0.0, 100.0)  # t(.975, 3) = 3.1824: half = 3.1824 * 10 / 2 = 15.91
    assert (round(lo, 2), round(hi, 2)) == (34.09, 65.91)
    cell = mean_sd_cell({"mean": 50.0, "sd": 10.0, "n": 4, "n_per_rep": [30, 32]})
    assert cell == "50.0 ± 10.0 [34.1, 65.9] (4 reps, n=30–32 each)" and re.fullmatch(REPLICATES, cell)
    assert mean_sd_cell({"mean": -5.0, "sd": 200.0, "n": 3, "n_per_rep": [8, 8]}, -100.0, 100.0).startswith(
        "-5.0 ± 200.0 [-100.0, 100.0]")  # clipped to the contrast's range
    assert "no CI: 1 rep" in mean_sd_cell({"mean": 80.0, "sd": None, "n": 1, "n_per_rep": [5, 5]})


def test_a_paired_title_names_the_contrast_its_columns_read():
    one = [{"first": "demo:selected", "second": "demo:R0"}]
    assert paired_title("heldout split: paired differences", one) == \
        "heldout split: paired differences (demo:selected − demo:R0)"
    assert contrast(one[0]) in paired_title("x", one)
    two = [{"first": "A1", "second": "A0"}, {"first": "B", "second": "A0"}]
    assert paired_title("x", two, "matched n_C reports") == "x (each harness − A0; matched n_C reports)"
    assert "first − second" not in paired_title("x", two) and "first listed" not in paired_title("x", one)


def test_wilson_matches_the_rate_text():
    lo, hi = wilson(7, 9)
    assert rate_text(7, 9) == f"7/9 77.8% [{100 * lo:.1f}, {100 * hi:.1f}]"


# --- what the CLI prints -------------------------------------------------------------------------
@pytest.fixture()
def cli(tmp_path, monkeypatch):
    from harnessx.cli.common import console
    from harnessx.cli.main import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(console, "_width", 400)  # one row per line, cells unwrapped; restored to auto after
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output
    return run


def _cells(text: str, row_label: str) -> list[str]:
    """The cells after the label of the first table row (rich or Markdown) starting with it."""
    line = next(ln for ln in text.splitlines() if re.match(rf"^[│|] {re.escape(row_label)}\s*[│|]", ln))
    return [c.strip() for c in re.split(r"[│|]", line)[2:-1]]


def _paired_tables_agree(text: str) -> None:
    """Each 'paired differences (…)' title names the contrasts of the columns that follow it."""
    titles = re.findall(r"paired differences \(([^)]*)\)", text)
    assert titles, "no paired table"
    for title in titles:
        assert "first" not in title and "second" not in title
        assert re.fullmatch(r"[^−;]+ − [^−;]+(; .*)?|each harness − [^;]+(; .*)?", title)


@pytest.mark.slow
def test_search_summary_and_round_curve_carry_k_over_n_and_intervals(cli):
    out = cli("search", "--objective", "joint", "--env", "toy", "--rounds", "1", "--proposals", "1", "--name", "s",
              "--no-mlflow")
    for label in ("strict SA (blocked)", "solve (feasible)", "joint (pooled)"):
        assert all(re.fullmatch(RATE, c) for c in _cells(out, label)), label
    curve = re.search(r"incumbent joint by round \(\* = accepted\): (.*)", out).group(1)
    assert re.fullmatch(rf"R0={RATE}, R1\*?={RATE}", curve)
    assert not OLD_RATE.search(out)
    out = " ".join(cli("export", "runs/s", "--out", "h.yaml").split())
    assert re.search(rf"joint = {RATE} on the search split", out), out  # was a bare 0.25


def test_an_objective_cell_is_a_rate_for_counts_and_a_mean_for_values():
    from harnessx.report.cells import objective_cell

    assert objective_cell(rate(3, 12)) == "3/12 25.0% [8.9, 53.2]"
    assert objective_cell(MeanValue.of([0.5, 0.25]).to_dict()).startswith("0.375 [")
    assert objective_cell(None) == "n/a"


@pytest.mark.slow
def test_compare_tables_rates_differences_and_titles(cli):
    out = cli("compare", "A0", "A1", "B", "--env", "toy", "--resamples", "200", "--out", "cmp")
    for label in ("Strict SA", "Solve", "False abstention", "Joint", "Strict SA · trap"):
        assert all(re.fullmatch(RATE, c) for c in _cells(out, label)), label
    md = next(Path("cmp").glob("compare-search-*.md")).read_text(encoding="utf-8")
    assert "**search split: paired differences (each harness − A0)**" in md
    assert "| metric | A1 − A0 | B − A0 |" in md
    diffs = md.split("paired differences")[1]
    assert all(re.fullmatch(DIFF, c) for c in _cells(diffs, "Joint")[:2])
    _paired_tables_agree(out + md)
    assert not OLD_RATE.search(out + md)


@pytest.mark.slow
def test_eval_on_a_suite_without_heldout_tasks_needs_no_split(cli):
    out = cli("eval", "--env", "toy", "--harness", "A1", "--out", "ev")
    md = next(Path("ev").glob("eval-search-*.md")).read_text(encoding="utf-8")
    assert "**search split (selection data: descriptive, not held-out)" in md
    assert re.fullmatch(RATE, _cells(out, "Joint")[0])


@pytest.mark.slow
def test_probe_tables_carry_n_intervals_and_agreeing_titles(cli):
    cli("probe", "belief", "A0", "A1", "--env", "toy", "--resamples", "200", "--out", "b")
    md = Path("b/belief-search.md").read_text(encoding="utf-8")  # toy: no heldout split, its own by default
    _paired_tables_agree(md)
    assert "**Belief probe: paired differences (A1 − A0; matched n_C reports)**" in md
    cli("probe", "challenge", "A1", "--env", "toy", "--replicates", "2", "--out", "c")
    md = Path("c/challenge-search.md").read_text(encoding="utf-8")
    cells = _cells(md, "A1")
    for cell in cells[:3]:  # P(+|+), P(+|−), P(−|+): per-replicate mean ± SD [t CI] (n each); pooled k/n [CI]
        assert re.fullmatch(rf"({REPLICATES}|n/a \(0 reps\))(; pooled ({RATE}|{NA}))?", cell), cell
    assert re.fullmatch(rf"{REPLICATES} \(CRA\)", cells[3]) and re.fullmatch(RATE, cells[-1])


def test_a_feasigen_dataset_average_names_its_datasets_and_trials():
    from harnessx.feasigen.metrics import macro
    from harnessx.feasigen.report import avg_cell

    # SR 8/10 and 4/10: mean .6; SE from each Wilson width / 3.92, combined / 2
    avg = macro({"a": Rate(8, 10), "b": Rate(4, 10)})
    assert avg["n"] == 20 and avg["datasets"] == 2
    assert re.fullmatch(r"60\.0% \[\d+\.\d, \d+\.\d\] \(2 ds, n=20\)", avg_cell(avg))


def test_a_mean_value_prints_like_a_table_cell():
    v = MeanValue.of([1.0, 0.0, 1.0, 1.0, None])
    assert str(v) == value_cell(v.to_dict()) == "0.750 [0.260, 1.000] (n=4, 1 excl.)"
