"""The viewer screenshots in docs/viewer.md, one per page type, taken with the real Chromium.

Makes a simulated retail search (R0 + 2 x 2, greedy) and its held-out compare through the CLI, serves
the runs folder with `harnessx view`'s app on loopback, and saves a 1200 x 800 view of each page
(runs list, search tree, candidate and its task table, held-out flips, side by side, trajectory,
outputs) as docs/viewer-<page>.png. Needs Debian's `chromium` and Playwright's Python package.

    python docs/viewer_screenshots.py                # into docs/
    python docs/viewer_screenshots.py --runs runs/   # over an existing runs folder holding runs/demo
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from werkzeug.serving import make_server

from harnessx.comparison.compare_trials import CompareRun
from harnessx.comparison.flips import flips
from harnessx.search import Search, SearchConfig
from harnessx.search.objectives import get_objective
from harnessx.viewer import create_app

DOCS = Path(__file__).resolve().parent
SIZE = {"width": 1400, "height": 800}  # the width the task table is made to fit
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def make_runs(runs: Path) -> Path:
    config = SearchConfig.of(objective="joint", env="retail", rounds=2, proposals=2, runs_dir=str(runs), name="demo",
                          tracking_uri=None, concurrency=4, accept="greedy", proposer="rules")
    asyncio.run(Search(config).run())
    subprocess.run([sys.executable, "-m", "harnessx.cli.main", "compare", str(runs / "demo")], cwd=runs.parent,
                   check=True, stdout=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "120"})
    return runs / "demo"


def pages(run: Path) -> dict[str, str]:
    """page name -> path under the server, for each page type."""
    ledger = [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]
    child = next((r for r in ledger if r.get("accepted") and r.get("parent")), ledger[-1])
    compare = CompareRun(run / "compare")
    report = flips(compare.trials(compare.resolve("R0")), compare.trials(compare.resolve("selected")),
                   get_objective("joint"))
    first = report.flips[0]
    return {"runs": "/", "search": f"/runs/{run.name}",
            "candidate": f"/runs/{run.name}/candidates/{child['hash']}?flipped=any&sort=outcome#filters",
            "flips": f"/runs/{run.name}/flips?a=R0&b=selected&at=compare",
            "side-by-side": f"/runs/{run.name}/side?a=R0&b=selected&at=compare&task={first.task_id}&seed={first.seed}",
            "trajectory": f"/runs/{run.name}/trajectories/{first.second_key}",
            "outputs": f"/runs/{run.name}/outputs"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", help="a runs folder holding a search `demo` and its compare (default: make one)")
    ap.add_argument("--out", default=str(DOCS), help="where the PNGs go")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = tempfile.TemporaryDirectory()
    runs = Path(args.runs) if args.runs else Path(tmp.name) / "runs"
    run = runs / "demo" if args.runs else make_runs(runs)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = make_server("127.0.0.1", 0, create_app(runs), threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        tab = browser.new_page(viewport=SIZE)
        for name, path in pages(run).items():
            tab.goto(base + path)
            target = Path(args.out) / f"viewer-{name}.png"
            tab.screenshot(path=str(target))
            print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")
        browser.close()
    server.shutdown()
    tmp.cleanup()


if __name__ == "__main__":
    main()
