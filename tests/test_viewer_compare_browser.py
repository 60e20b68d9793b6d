"""The held-out flip path, the task table's filters and the links, in a real headless Chromium: from a
default search's page, one click reaches the tasks the selected harness flipped against R0 on the
held-out compare, a second the two trajectories of one of them side by side; the task table filters by
outcome and "failed on every seed", sorts, and fits a 1400 px window; a trajectory links to its
candidate and to the parent's rollout of the same task and seed. Screenshots land in
test-artifacts/viewer/."""

from __future__ import annotations

import json

import pytest
from conftest import require

from harnessx.comparison.compare_trials import CompareRun
from harnessx.comparison.flips import flips
from harnessx.search.objectives import get_objective
from harnessx.viewer.tasktable import failed_every_seed, outcome

from tests.test_viewer_browser import ARTIFACTS, browser_tab, viewer_at
from tests.test_viewer_flips_browser import two_clicks
from tests.viewer_fixtures import make_heldout_compare


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    require("browser")  # Debian's chromium and playwright
    runs = tmp_path_factory.mktemp("heldout-browser") / "runs"
    run = make_heldout_compare(runs)
    compare = CompareRun(run / "compare")
    report = flips(compare.trials(compare.resolve("R0")), compare.trials(compare.resolve("selected")),
                   get_objective("joint"))
    with viewer_at(runs) as base:
        yield base, run, report


@pytest.fixture(scope="module")
def page(served):
    with browser_tab(1400) as tab:
        yield tab


def child_of(run):
    ledger = [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]
    child = next(r for r in ledger if r.get("parent"))
    rows = [json.loads(line) for line in (run / "scores" / f"{child['hash']}.jsonl").read_text().splitlines()]
    return child, rows


def test_two_clicks_from_the_search_reach_the_heldout_flips_and_a_side_by_side(served, page):
    base, _, report = served
    assert report.flips, "the held-out compare flipped no task; the test needs one"
    page.goto(f"{base}/runs/demo")
    summary = two_clicks(page, "#heldout-flips-link", report, "heldout-flips.png")  # flips, then a side by side
    assert f"of {report.compared} trials compared on the heldout split" in summary
    first = report.flips[0]
    assert page.locator("table#side tr").count() > 1
    hrefs = [page.locator("#divergence a").nth(i).get_attribute("href") for i in range(page.locator("#divergence a").count())]
    assert f"/runs/demo/trajectories/{first.first_key}" in hrefs and f"/runs/demo/trajectories/{first.second_key}" in hrefs


def test_task_table_filters_failed_on_every_seed_sorts_and_fits_1400px(served, page):
    base, run, _ = served
    child, rows = child_of(run)
    page.goto(f"{base}/runs/demo/candidates/{child['hash']}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    page.select_option("select[name=outcome]", "fail")
    page.check("input[name=every_seed]")
    page.click("#filters button[type=submit]")
    stuck = failed_every_seed(rows)
    expected = [r for r in rows if outcome(r) == "fail" and r["task_id"] in stuck]
    assert page.locator("#tasks tbody tr").count() == min(len(expected), 100)
    assert page.locator("input[name=every_seed]").is_checked()
    page.click("th a.sort:has-text('task')")                    # ascending, the filters kept
    page.click("th a.sort:has-text('task')")                    # then descending
    ids = page.locator("#tasks td.task a").all_inner_texts()
    assert ids == sorted(ids, reverse=True) and len(ids) == min(len(expected), 100)
    assert "every_seed=1" in page.url and "outcome=fail" in page.url
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    page.screenshot(path=str(ARTIFACTS / "task-table.png"), full_page=True)


def test_a_trajectory_links_to_its_candidate_and_the_parents_rollout(served, page):
    base, run, _ = served
    child, rows = child_of(run)
    row = rows[0]
    parent_rows = [json.loads(line) for line in (run / "scores" / f"{child['parent']}.jsonl").read_text().splitlines()]
    twin = next(r for r in parent_rows if r["task_id"] == row["task_id"] and r["seed"] == row["seed"])
    page.goto(f"{base}/runs/demo/trajectories/{row['key']}")
    page.click("#parent-rollout")
    assert page.url.endswith(f"/trajectories/{twin['key']}")
    assert row["task_id"] in page.locator("body").inner_text()
    page.click("#candidate-link")                              # the parent's trajectory names its candidate
    assert page.url.endswith(f"/candidates/{child['parent']}")
    page.goto(f"{base}/runs/demo/trajectories/{row['key']}")
    page.click("#candidate-link")
    assert page.url.endswith(f"/candidates/{child['hash']}")
    page.click("#parent-link")
    assert page.url.endswith(f"/candidates/{child['parent']}")
