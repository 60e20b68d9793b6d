"""`harnessx view` in a real headless Chromium (Debian's package, driven by Playwright's Python API):
the tree shows every candidate, a trajectory page shows the abandon event with its author, a tampered
trajectory shows as tampered, `<script>` renders as text. Screenshots land in test-artifacts/viewer/."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import require

from tests.viewer_fixtures import SCRIPT, agent_abandon_key, make_search, script_trajectory, tamper

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "test-artifacts" / "viewer"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def viewer_at(runs: Path):
    """`harnessx view RUNS` on a free loopback port for the length of the block; yields its base URL."""
    proc = subprocess.Popen([sys.executable, "-m", "harnessx.cli.main", "view", str(runs), "--port", "0"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, f"viewer did not start: {line!r}"
        yield f"http://127.0.0.1:{match.group(1)}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def browser_tab(width: int):
    """A tab of Debian's headless Chromium (Playwright drives it; no browser download)."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser.new_page(viewport={"width": width, "height": 900})
        browser.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    require("browser")  # Debian's chromium and playwright
    runs = tmp_path_factory.mktemp("browser") / "runs"
    run = make_search(runs)
    keys = {"abandon": agent_abandon_key(run), "script": script_trajectory(run)}
    keys["tampered"] = tamper(run, set(keys.values()))
    with viewer_at(runs) as base:
        yield base, run, keys


@pytest.fixture(scope="module")
def page(served):
    with browser_tab(1280) as tab:
        yield tab


def test_tree_shows_every_candidate_and_a_lineage_click_jumps_to_its_round(served, page):
    base, run, _ = served
    page.goto(f"{base}/runs/demo")
    rows = [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]
    nodes = page.locator("#tree li.node")
    assert nodes.count() == len(rows)
    for row in rows:
        assert page.locator(f'#cand-{row["hash"]}-{row["round"]}-{row["slot"]}').count() == 1
    page.screenshot(path=str(ARTIFACTS / "search-tree.png"), full_page=True)
    origin = page.locator("table.lineage a.origin").last
    target = origin.get_attribute("href")
    origin.click()
    assert page.url.endswith(target)
    assert page.locator(f"li.node{target.replace('#', '#', 1)}").evaluate("e => getComputedStyle(e).backgroundColor") \
        == "rgb(255, 246, 204)"  # :target highlight of the introducing proposal


def test_candidate_page_lists_per_task_gates(served, page):
    base, run, _ = served
    r0 = json.loads((run / "ledger.jsonl").read_text().splitlines()[0])["hash"]
    page.goto(f"{base}/runs/demo/candidates/{r0}")
    scores = (run / "scores" / f"{r0}.jsonl").read_text().splitlines()
    assert page.locator("#tasks tr").count() == len(scores) + 1
    page.select_option("select[name=family]", "infeasible")
    page.click("#filters button")
    shown = page.locator("#tasks tr").count() - 1
    assert 0 < shown < len(scores)
    page.screenshot(path=str(ARTIFACTS / "candidate.png"), full_page=True)


def test_trajectory_page_highlights_the_agent_authored_abandon(served, page):
    base, _, keys = served
    page.goto(f"{base}/runs/demo/trajectories/{keys['abandon']}")
    event = page.locator("li.event.abandon")
    assert event.count() >= 1
    assert event.first.get_attribute("data-author") == "agent"
    assert "ABANDON by agent" in event.first.inner_text()
    assert page.locator("#chain").inner_text().startswith("hash chain: verified")
    page.screenshot(path=str(ARTIFACTS / "trajectory-abandon.png"), full_page=True)


def test_tampered_trajectory_shows_as_tampered(served, page):
    base, _, keys = served
    page.goto(f"{base}/runs/demo/trajectories/{keys['tampered']}")
    assert "tampered" in page.locator("#chain").inner_text()
    page.screenshot(path=str(ARTIFACTS / "trajectory-tampered.png"), full_page=True)


def test_script_in_a_trajectory_is_text_and_never_runs(served, page):
    base, _, keys = served
    page.goto(f"{base}/runs/demo/trajectories/{keys['script']}")
    assert page.title() != "pwned"
    assert page.locator("main script").count() == 0 and page.locator("b", has_text="bold?").count() == 0
    assert SCRIPT in page.locator("li.event.message").last.inner_text()
    page.screenshot(path=str(ARTIFACTS / "trajectory-script.png"), full_page=True)
