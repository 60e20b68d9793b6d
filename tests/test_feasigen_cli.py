"""`harnessx feasigen sample|agreement|eval|report` on the command line, and their input errors."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.retail.suite import RetailSuite
from harnessx.feasigen.construct import BuildConfig, build
from harnessx.report.cells import rate_cell


def invoke(*args, code: int = 0):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


def test_sample_reproduces_the_papers_allocation():
    out = " ".join(invoke("feasigen", "sample", "--size", "BFCL=445", "--size", "STB=300", "--size",
                          "API-Bank=184", "--size", "tau-bench=107").split())
    assert "N = 1036" in out and "n = 281" in out and "121 + 82 + 50 + 30 = 283" in out


def test_agreement_prints_kappa_ac1_and_the_wilson_interval(tmp_path):
    rows = ["dataset,task_id,annotator_1,annotator_2"]
    rows += [f"d,t{i},yes,yes" for i in range(258)] + [f"d,n{i},no,no" for i in range(13)]
    rows += [f"d,x{i},yes,no" for i in range(6)] + [f"d,y{i},no,yes" for i in range(6)]
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(rows) + "\n")
    out = " ".join(invoke("feasigen", "agreement", str(path)).split())
    assert "raw agreement 271/283 95.8% [92.7, 97.6] (12 disagreements)" in out and "Cohen's κ 0.66" in out and "Gwet's AC1 0.95" in out
    assert "confirmed 258/283" in out


def test_agreement_bad_label_names_file_line_and_column(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("dataset,task_id,annotator_1,annotator_2\nd,t1,yes,maybe\n")
    out = invoke("feasigen", "agreement", str(path), code=2)
    assert f"{path}:2" in out and "annotator_2" in out and "yes or no" in out


def test_eval_needs_a_built_suite(tmp_path):
    out = invoke("feasigen", "eval", "--suite", str(tmp_path), code=2)
    assert "suite.json" in out and "file not found" in out


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("fgcli") / "suite"
    asyncio.run(build(RetailSuite(), BuildConfig(env="retail", out=str(out), limit=12)))
    return out


def test_eval_and_report_print_every_metric_with_n(small_suite, tmp_path):
    out_dir = tmp_path / "eval"
    text = invoke("feasigen", "eval", "--suite", str(small_suite), "--model", "sim/baseline", "--model",
                  "sim/ideal", "--pair", "sim/ideal->sim/baseline", "--split", "search", "--split", "heldout",
                  "--split", "independent", "--out", str(out_dir))
    for title in ("SR on Task_original", "FCR on Task_infeasible", "completed while infeasible", "TC_early-stop",
                  "FASS", "Planner → executor", "Pareto", "SIMULATED"):
        assert title in text, title
    data = json.loads((out_dir / "results.json").read_text())
    ideal = data["systems"]["sim/ideal"]["datasets"]["retail"]
    assert ideal["fcr"]["k"] == 0 and ideal["fcr"]["n"] == data["n_infeasible"] > 0
    assert ideal["fass"]["n"] == data["n_original"] + data["n_infeasible"]
    pair = data["multi_agent"]["sim/ideal -> sim/baseline"]["datasets"]["retail"]
    assert pair["executor_sr"] == data["systems"]["sim/baseline"]["datasets"]["retail"]["sr"]
    invoke("feasigen", "report", str(out_dir))
    md = (out_dir / "feasigen-report.md").read_text()
    assert "sim/ideal (simulated)" in md and "multi-agent FASS" in md
    # counts carry their denominator, the valid infeasible trials: "false continues k/n", "stopped at planning k/n"
    base = data["systems"]["sim/baseline"]["datasets"]["retail"]
    assert f"| retail | {base['false_continue_count']}/{base['fcr']['n']} |" in md
    assert f"{rate_cell(pair['fcr'])} | {pair['stopped_at_planning']}/{pair['fcr']['n']} |" in md
    assert (out_dir / "figures" / "pareto.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out_dir / "feasigen-report.html").read_text().startswith("<!DOCTYPE html>")


def test_sample_from_a_suite_writes_the_annotation_sheet(small_suite, tmp_path):
    sheet = tmp_path / "sheet.csv"
    invoke("feasigen", "sample", "--suite", str(small_suite), "--out", str(sheet))
    lines = sheet.read_text().splitlines()
    assert lines[0] == "dataset,task_id,annotator_1,annotator_2" and len(lines) > 1
    assert all(line.split(",")[1].endswith("-masked") for line in lines[1:])
