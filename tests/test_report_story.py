"""`harnessx report` leads with the claim and the held-out flips (where the claim lives), fits the page
(long diff lines wrap), labels a screened candidate's score as such, and names each candidate's MLflow
run and Optuna trial."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from harnessx.report.run_report import build_report
from tests.viewer_fixtures import make_heldout_compare, make_search


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return make_heldout_compare(tmp_path_factory.mktemp("report") / "runs")


def headings(md: str) -> list[str]:
    return re.findall(r"^## (.+)$", md, re.M)


@pytest.mark.slow
def test_the_report_leads_with_the_claim_then_the_heldout_flips(compared, tmp_path):
    md_path, page, _ = build_report(compared, tmp_path / "out")
    md = md_path.read_text()
    assert headings(md)[:3] == ["Certified claim", "Held-out flips: where the claim lives", "Search"]
    held = md.split("## Held-out flips: where the claim lives")[1].split("## Search")[0]
    trials = [json.loads(line) for line in next((compared / "compare").glob("*.trials.jsonl")).read_text().splitlines()[1:]]
    assert "heldout split, tasks no candidate was selected on" in held
    flipped = set(re.findall(r"^\| (retail-[^ ]+) \|", held, re.M))
    assert flipped and flipped <= {t["task_id"] for t in trials if t["split"] == "heldout"}
    html = page.read_text()
    assert "pre{white-space:pre-wrap" in html and "td{overflow-wrap:anywhere}" in html


def test_every_candidate_is_listed_with_its_subset_its_mlflow_run_and_optuna_trial(tmp_path):
    runs = tmp_path / "runs"
    run = make_search(runs, rounds=1, proposals=2)
    ledger = run / "ledger.jsonl"
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    rows[1]["judged"] = {**rows[1]["judged"], "tasks": 4, "screened": True}
    rows[1]["stage"], rows[1]["mlflow_run_id"] = "smoke", "abc123"
    ledger.write_text("".join(json.dumps(r) + "\n" for r in rows))
    md = build_report(run, tmp_path / "out")[0].read_text()
    table = md.split("**Candidates: what each was judged on")[1].split("\n\n")[1]
    lines = [line for line in table.splitlines() if line.startswith("| R")]
    assert len(lines) == len(rows)
    for line, row in zip(lines, rows):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0].endswith(row["hash"][:8]) and cells[6] == str(row["optuna_trial"])
        assert cells[5] == (row["mlflow_run_id"] or "—")
        assert cells[2] == (f"screened on 4 of {row['judged']['of']} tasks (smoke)" if row is rows[1] else "whole split")
    shutil.rmtree(runs)
