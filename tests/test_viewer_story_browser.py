"""The story items of the viewer in a real headless Chromium (Debian's, driven by Playwright): a
side-by-side page shows each side's verdict, a trajectory's raw file downloads from its page as stored,
the search and candidate pages name their MLflow run and Optuna trial, a compare's page takes the
window's height, and the run's report fits a narrow window. Screenshots land in test-artifacts/viewer/."""

from __future__ import annotations

import json
import re

import pytest

from conftest import require
from harnessx.report.run_report import build_report
from tests.test_viewer_browser import ARTIFACTS, browser_tab, viewer_at
from tests.viewer_fixtures import make_heldout_compare


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    require("browser")
    run = make_heldout_compare(tmp_path_factory.mktemp("story-browser") / "runs")
    build_report(run)
    with viewer_at(run.parent) as base:
        yield base, run


@pytest.fixture(scope="module")
def page(served):
    with browser_tab(1000) as tab:
        yield tab


@pytest.mark.slow
def test_side_by_side_shows_each_sides_verdict(served, page):
    base, _ = served
    page.goto(f"{base}/runs/demo/flips?at=compare")
    page.locator("#flipped a.side").first.click()
    outcomes = page.locator("#verdicts td.outcome")
    assert outcomes.count() == 2 and page.locator("#verdicts").is_visible()
    words = sorted(outcomes.nth(i).locator("b").inner_text() for i in range(2))
    assert words == ["fail", "pass"]
    assert "not the verdict" in page.locator("#verdicts").inner_text()
    page.screenshot(path=str(ARTIFACTS / "side-verdicts.png"), full_page=True)


@pytest.mark.slow
def test_the_raw_trajectory_downloads_as_stored(served, page):
    base, run = served
    file = sorted((run / "rollouts").rglob("*.jsonl"))[0]
    page.goto(f"{base}/runs/demo/trajectories/{file.stem}")
    with page.expect_download() as info:
        page.click("#raw-download")
    download = info.value
    assert download.suggested_filename == f"{file.stem}.jsonl"
    assert open(download.path(), "rb").read() == file.read_bytes()


@pytest.mark.slow
def test_search_and_candidate_pages_name_their_mlflow_run_and_optuna_trial(served, page):
    base, run = served
    rows = [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]
    page.goto(f"{base}/runs/demo")
    assert "optuna-dashboard" in page.locator("#tracked").inner_text()
    page.locator(f"a.cand[href$='{rows[-1]['hash']}']").first.click()
    tracked = page.locator("#tracked").inner_text()
    assert f"Optuna trial {rows[-1]['optuna_trial']}" in tracked and "MLflow run" in tracked


@pytest.mark.slow
def test_a_compare_page_takes_the_window_height_and_the_report_fits_the_window(served, page):
    base, _ = served
    page.goto(f"{base}/runs/demo/outputs")
    frames = page.locator("iframe.report")
    assert frames.count() >= 1
    height = page.viewport_size["height"]
    assert all(frames.nth(i).bounding_box()["height"] >= 0.8 * height for i in range(frames.count()))
    page.goto(f"{base}/runs/demo/files/report/report.html")
    assert page.locator("h2").first.inner_text() == "Certified claim"
    assert re.search(r"Held-out flips", page.locator("h2").nth(1).inner_text())
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the report is {overflow} px wider than a 1000 px window"
    page.screenshot(path=str(ARTIFACTS / "report-top.png"))
