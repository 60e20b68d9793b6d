"""How fast `harnessx view` opens every page of a large search, over real HTTP.

Runs (or reuses, with --run) a simulated search of about 3,200 rollouts on retail with the paper's
greedy rule (every proposal fully evaluated), adds a genuine 50-turn hash-chained trajectory to it,
serves the folder with the viewer on loopback and times each page (runs list, tree, candidate, the
task table filtered and sorted, the flips of selected against R0, a flipped task side by side, the
long trajectory, and from its held-out compare, made here through the CLI unless the run has one:
the flips and the selected harness's trials): the first (cold) request and the median of --repeats
more. Aim: each under 0.5 s.

    python bench/viewer_speed.py                 # about 3,200 rollouts (R0 + 8 x 3 on 128 tasks)
    python bench/viewer_speed.py --run runs/joint-retail
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from werkzeug.serving import make_server

from harnessx.comparison.flips import flips
from harnessx.comparison.run_trials import SearchRun
from harnessx.search import Search, SearchConfig
from harnessx.search.objectives import get_objective
from harnessx.trajectory import Trajectory
from harnessx.viewer import create_app

LONG_KEY = "5e5e5e5e5e5e5e5e5e5e5e5e"
AIM_S = 0.5


def make_search(runs: Path, rounds: int, proposals: int) -> Path:
    config = SearchConfig.of(objective="joint", env="retail", accept="greedy", proposer="rules", rounds=rounds, proposals=proposals,
                          runs_dir=str(runs), name="big", tracking_uri=None, concurrency=16)
    asyncio.run(Search(config).run())
    return runs / "big"


def long_trajectory(run: Path, turns: int) -> str:
    traj = Trajectory()
    traj.append("start", "harness", 0, task_id="long", harness_hash="0" * 16, model="sim/baseline", seed=0)
    traj.append("message", "user", 0, role="task", content="A long conversation.")
    for step in range(1, turns + 1):
        traj.append("model_call", "harness", step, role="agent", model="sim/baseline", prompt_tokens=900 + step,
                    completion_tokens=40, cost_usd=0.0, latency_s=0.01, retries=0)
        traj.append("tool_call", "agent", step, name="get_order_details", arguments={"order_id": f"#W{step:07d}"},
                    id=f"c{step}")
        traj.append("tool_result", "environment", step, id=f"c{step}", name="get_order_details",
                    content=json.dumps({"order_id": f"#W{step:07d}", "items": list(range(20))}), error=False)
        traj.append("message", "agent", step, role="agent", content=f"Turn {step}: checked the order. " * 5)
    traj.append("end", "harness", turns, reward=0.0, status="ok", reason="max_steps")
    traj.save(run / "rollouts" / LONG_KEY[:2] / f"{LONG_KEY}.jsonl")
    return LONG_KEY


def heldout_compare(run: Path) -> None:
    """The run's held-out compare (`<run>/compare`), through the CLI as a user runs it, unless it has one."""
    if list((run / "compare").glob("*.trials.jsonl")):
        return
    subprocess.run([sys.executable, "-m", "harnessx.cli.main", "compare", str(run), "--concurrency", "16"],
                   cwd=run.parent.parent, check=True, stdout=subprocess.DEVNULL)


def timed(url: str, repeats: int) -> tuple[float, float, int]:
    def once() -> tuple[float, int]:
        start = time.perf_counter()
        with urllib.request.urlopen(url) as response:
            size = len(response.read())
        return time.perf_counter() - start, size

    cold, size = once()
    warm = statistics.median(once()[0] for _ in range(repeats))
    return cold, warm, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", help="an existing search run directory (default: make one)")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--proposals", type=int, default=3)
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--keep", help="make the search under this runs folder and keep it (default: a temporary one)")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    if args.run:
        run = Path(args.run)
    else:
        started = time.perf_counter()
        run = make_search(Path(args.keep or tmp.name) / ("" if args.keep else "runs"), args.rounds, args.proposals)
        print(f"made a simulated search in {time.perf_counter() - started:.0f} s")
    rollouts = len(list((run / "rollouts").rglob("*.json")))
    candidates = len((run / "ledger.jsonl").read_text().splitlines())
    key = long_trajectory(run, args.turns)
    heldout_compare(run)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no request log lines between the figures
    server = make_server("127.0.0.1", 0, create_app(run.parent), threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/runs/{run.name}"
    selected = json.loads((run / "summary.json").read_text())["selected"]["hash"]
    trials = SearchRun(run)
    report = flips(trials.trials(trials.resolve("R0")), trials.trials(trials.resolve("selected")), get_objective("joint"))
    first = report.flips[0] if report.flips else None
    pages = {"runs list": base.rsplit("/runs/", 1)[0] + "/",
             "search tree + lineage": base, "selected candidate (per-task, page 1)": f"{base}/candidates/{selected}",
             "task table: failed every seed, sorted": f"{base}/candidates/{selected}?outcome=fail&every_seed=1&sort=-task_id",
             "task table: flipped against parent": f"{base}/candidates/{selected}?flipped=any",
             "flips R0 -> selected": f"{base}/flips?a=R0&b=selected"}
    if first is not None:
        pages["side by side (a flipped task)"] = f"{base}/side?a=R0&b=selected&task={first.task_id}&seed={first.seed}"
        pages["trajectory (a flipped task)"] = f"{base}/trajectories/{first.second_key}"
    pages[f"{args.turns}-turn trajectory"] = f"{base}/trajectories/{key}"
    pages["held-out flips R0 -> selected"] = f"{base}/flips?a=R0&b=selected&at=compare"
    pages["held-out trials of selected"] = f"{base}/contenders/selected?at=compare&sort=outcome"
    print(f"search {run.name}: {rollouts} rollouts, {candidates} candidates")
    print(f"{'page':40} {'cold s':>8} {'median s':>9} {'KiB':>7}  under {AIM_S} s")
    for name, url in pages.items():
        cold, warm, size = timed(url, args.repeats)
        print(f"{name:40} {cold:8.3f} {warm:9.3f} {size / 1024:7.0f}  {'yes' if max(cold, warm) < AIM_S else 'NO'}")
    server.shutdown()
    tmp.cleanup()


if __name__ == "__main__":
    main()
