"""The viewer's flip view in a real headless Chromium: from a search's page, one click reaches the tasks
the selected harness flipped against R0, a second click the two trajectories of one of them side by
side, with the first divergence marked. The counts on the page are the library's own (`flips`).
Screenshots land in test-artifacts/viewer/."""

from __future__ import annotations

import asyncio

import pytest

from harnessx.comparison.flips import flips
from harnessx.comparison.run_trials import SearchRun
from harnessx.search import Search, SearchConfig
from harnessx.search.objectives import get_objective
from conftest import require

from tests.test_viewer_browser import ARTIFACTS, browser_tab, viewer_at


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    require("browser")  # Debian's chromium and playwright
    runs = tmp_path_factory.mktemp("flips") / "runs"
    config = SearchConfig.of(objective="joint", env="retail", rounds=1, proposals=2, runs_dir=str(runs), name="demo",
                          tracking_uri=None, concurrency=4, accept="greedy", proposer="rules")
    asyncio.run(Search(config).run())
    run = SearchRun(runs / "demo")
    report = flips(run.trials(run.resolve("R0")), run.trials(run.resolve("selected")), get_objective("joint"))
    with viewer_at(runs) as base:
        yield base, report


@pytest.fixture(scope="module")
def page(served):
    with browser_tab(1400) as tab:
        yield tab


def two_clicks(page, link: str, report, shot: str) -> str:
    """Click `link` (the flips of selected vs R0), check the counts and rows against `report`, then the
    first flipped task (its two trajectories side by side); returns the flip summary's text."""
    page.click(link)                                            # click 1: the flips
    summary = " ".join(page.locator("#flip-summary").inner_text().split())
    assert f"{len(report.gained)} gained, {len(report.lost)} lost of {report.compared} trials" in summary
    assert page.locator("#flipped tr").count() == len(report.flips) + 1
    page.screenshot(path=str(ARTIFACTS / shot), full_page=True)
    first = report.flips[0]
    page.locator("#flipped a.side").first.click()               # click 2: its two trajectories
    heading = page.locator("h1").inner_text()
    assert first.task_id in heading and f"seed {first.seed}" in heading
    return summary


def test_two_clicks_from_the_search_reach_the_flips_and_a_side_by_side(served, page):
    base, report = served
    assert report.flips, "the retail search accepted no edit that flips a task; the test needs one"
    page.goto(f"{base}/runs/demo")
    two_clicks(page, "#flips-link", report, "flips.png")
    marked = page.locator("tr.divergence")
    assert marked.count() == 1 and page.locator("#divergence a[href^='#row-']").count() == 1
    cells = marked.locator("td code")
    assert cells.nth(0).inner_text() != cells.nth(1).inner_text()
    page.screenshot(path=str(ARTIFACTS / "side-by-side.png"), full_page=True)


def test_a_family_filter_keeps_only_that_familys_flips(served, page):
    base, report = served
    family = report.flips[0].family
    page.goto(f"{base}/runs/demo/flips?a=R0&b=selected&family={family}")
    expected = sum(1 for f in report.flips if f.family == family)
    assert page.locator("#flipped tr").count() == expected + 1


def test_an_unknown_candidate_is_a_404_page_not_a_traceback(served, page):
    base, _ = served
    response = page.goto(f"{base}/runs/demo/flips?a=R0&b=zzzz")
    assert response.status == 404 and "matches no candidate" in page.content()
