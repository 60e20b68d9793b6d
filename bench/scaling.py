"""Scale-out benchmark: one fixed search, its rollouts on 1 in-process worker, on 1/2/4/8 Ray
workers and on 2 `harnessx worker` processes sharing a PostgreSQL rollout queue.

The task agent is the simulated agent with a fixed per-call latency (`--latency`, seconds), so a
rollout waits on its "model" like a real API call; on a 2-core machine that latency-bound case
can still scale. Each mode runs the same search (toy suite, `--rounds` x `--proposals`, seed 0)
from scratch and must select the same harness. Reference rows "in-process, N at once" run the
search in one process with N rollouts in flight: the search's own limit (its stage barriers). Printed per mode: wall time of the search (Ray pool
start-up measured apart and left out), speed-up over one in-process worker, and that speed-up as
a ratio to ideal (N workers = N x). Then, on paper: the speed-up projected for more workers, at the
measured efficiency, until the provider rate limit `--rate-limit` (calls/s) binds: N workers keep
N calls in flight, i.e. N / latency calls/s, so the limit binds at N = rate x latency and the
projected speed-up is min(N x eff, rate x latency).

    python bench/scaling.py --latency 1.0          # PostgreSQL from HARNESSX_PG_URL (or --pg-url)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harnessx.search import Search, SearchConfig  # noqa: E402


def fixed_model(tmp: Path, latency: float) -> str:
    path = tmp / "sim-fixed.yaml"
    path.write_text(f"extends: baseline\nlatency: {{dist: fixed, mean_s: {latency}}}\n")
    return f"sim/{path}"


def run_search(config: SearchConfig) -> tuple[float, dict, float]:
    search = Search(config)
    started = time.monotonic()
    result = asyncio.run(search.run())
    wall = time.monotonic() - started
    startup = getattr(search.runner.executor, "startup_s", 0.0)
    return wall - startup, result.summary, startup


def new_database(admin: str) -> str:
    import psycopg

    name = f"hx_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin.rsplit("/", 1)[0] + f"/{name}"


def start_workers(n: int, storage: str, study: str) -> list[subprocess.Popen]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return [subprocess.Popen([sys.executable, "-m", "harnessx.cli.main", "worker", "--storage", storage, "--study",
                              study, "--wait", "600"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            for _ in range(n)]


def wait_ready(storage: str, n: int, timeout: float = 600) -> None:
    """Workers are up once they have imported everything and hold a connection to the database."""
    import psycopg

    database = storage.rsplit("/", 1)[1]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with psycopg.connect(storage, autocommit=True) as conn:
            (clients,) = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> "
                                      "pg_backend_pid()", (database,)).fetchone()
        if clients >= n:
            return
        time.sleep(0.5)
    raise SystemExit(f"{n} workers did not connect to {storage} within {timeout:.0f}s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--latency", type=float, default=1.0, help="seconds per simulated model call")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--proposals", type=int, default=2)
    ap.add_argument("--ray-workers", default="1,2,4,8")
    ap.add_argument("--pg-url", default=os.environ.get("HARNESSX_PG_URL"), help="PostgreSQL admin URL")
    ap.add_argument("--rate-limit", type=float, default=50.0, help="provider rate limit, calls/s, for the projection")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="hx-scaling-"))
    base = dict(objective="joint", env="toy", model=fixed_model(tmp, args.latency), rounds=args.rounds,
                proposals=args.proposals, seed=0, tracking_uri=None)
    rows: list[tuple[str, int, float, dict, float]] = []

    def mode(label: str, n_workers: int, name: str | None = None, **cfg) -> None:
        name = name or label.replace(" ", "").replace(",", "-")
        # a runs folder per mode: modes sharing one would be served from the first mode's rollout cache
        wall, summary, startup = run_search(SearchConfig(**base, runs_dir=str(tmp / f"runs-{name}"), name=name, **cfg))
        rows.append((label, n_workers, wall, summary, startup))
        print(f"  {label:24} {wall:7.1f}s  (+{startup:.1f}s pool start-up)  selected {summary['selected']['hash']}",
              flush=True)

    print(f"fixed search: toy suite, R0 + {args.rounds} x {args.proposals}, paired acceptance, simulated agent "
          f"with {args.latency}s per model call; {os.cpu_count()} CPU cores")
    mode("in-process, 1 worker", 1, concurrency=1)
    ray_ns = [int(w) for w in args.ray_workers.split(",")]
    for n in (n for n in ray_ns if n > 1):  # reference: the same search's own limit (its stage barriers), no Ray
        mode(f"in-process, {n} at once", n, concurrency=n)
    import ray

    ray.init(address="local", num_cpus=max(int(w) for w in args.ray_workers.split(",")), include_dashboard=False,
             log_to_driver=False)
    for n in (int(w) for w in args.ray_workers.split(",")):
        mode(f"ray, {n} worker(s)", n, executor="ray", workers=n, concurrency=max(8, n))
    ray.shutdown()
    if args.pg_url:
        storage, study = new_database(args.pg_url), "pg2"
        workers = start_workers(2, storage, study)
        try:
            wait_ready(storage, 2)
            mode("postgres queue, 2 workers", 2, name=study, executor="queue", storage=storage, workers=0)
        finally:
            for w in workers:
                w.wait(timeout=120) if w.poll() is None else None
    else:
        print("  postgres queue: skipped (no --pg-url / HARNESSX_PG_URL)")

    base_wall = rows[0][2]
    summary = rows[0][3]
    calls, rollouts = summary["model_calls"], summary["rollouts"]
    print(f"\n{rollouts} rollouts, {calls} model calls ({calls / rollouts:.2f} per rollout) in every mode; "
          f"sequential model time {calls * args.latency:.1f}s")
    print(f"{'mode':26} {'wall s':>7} {'speed-up':>9} {'ideal':>6} {'ratio':>6}  same harness")
    effs = []
    for label, n, wall, s, _ in rows:
        speedup = base_wall / wall
        ratio = speedup / n
        if n > 1 and label.startswith("ray") and n <= (os.cpu_count() or 1):
            effs.append(ratio)
        print(f"{label:26} {wall:7.1f} {speedup:9.2f} {n:6d} {ratio:6.2f}  "
              f"{s['selected']['hash'] == summary['selected']['hash'] and s['rollouts'] == rollouts}")
    eff = min(effs) if effs else 1.0
    cap = args.rate_limit * args.latency
    print(f"\nprojection (on paper): speed-up(N) = min(N x {eff:.2f} [lowest Ray ratio up to the core count], "
          f"rate limit {args.rate_limit:g} calls/s x {args.latency}s latency = {cap:.1f})")
    print("  " + "  ".join(f"N={n}: {min(n * eff, cap):.1f}" for n in (1, 2, 4, 8, 16, 32, 64, 128, 256)))
    print("  (the search's own stage barriers cap it too: the in-process 'N at once' rows measure that cap without "
          "Ray or a database; no stage has more rollouts in flight than proposals x tasks x epochs)")


if __name__ == "__main__":
    main()
