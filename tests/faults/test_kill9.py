"""kill -9 a real `harnessx search` process at 20 seeded points (mid-rollout, mid-ledger-append,
mid-checkpoint, mid-MLflow write, after an Optuna write) and `--resume` it after each kill until it
finishes; then the selection, the ledger, the Optuna trials and the MLflow runs equal an
uninterrupted run's, and no rollout whose record was on disk at a kill is paid again.

The kill: `HARNESSX_FAILPOINT=<site>:<n>` (harnessx/failpoints.py) makes the search process send
itself SIGKILL at the n-th pass through a named write, after the torn partial write a kill there can
leave (half a ledger line, a third of checkpoint.json.tmp never renamed, a trajectory without its
result). The process's exit status is checked to be -SIGKILL: nothing of the product ran after it.

The processes: each one runs the CLI's own `app` (tests/faults/kill9_child.py) with the search argv
below, in a process forked from one interpreter that has already imported the project
(multiprocessing's forkserver), because a fresh `python -m harnessx.cli.main` costs 6-10 s of imports
on this 2-core machine and this test starts over 20 of them. The kills run in chains: one run directory is
killed and resumed again and again. Each seeded point's hit number is drawn below what the rest of
that search surely passes through (`hit_number`), so every point is a real kill (asserted); when no
point left is sure to be reached, the chain's search is finished by a plain resume and a new chain
starts.

What "re-paid" means here: every rollout the executor starts and every model call it makes append a
line to an accounting file before they run. A rollout whose result record was in the run's or the
shared cache when a process was killed must never be started again; a rollout that was in flight at
the kill (started, record not yet written, including the torn `rollout.put` case) is paid again by
the resume, and only those: the set of rollouts paid equals the uninterrupted run's, and each one's
completing attempt makes exactly as many model calls as it did there.

Compared with the uninterrupted run: summary.json (selected hash and scorecard, curve, rounds,
rollouts, stop reason), selected.yaml and every scores/*.jsonl byte for byte, every ledger row, and
every Optuna trial (number, state, value, params, intermediate values, user attributes). Fields that
legitimately differ: `mlflow_run_id` in ledger rows and trial attributes (MLflow run ids are random;
the MLflow check maps them instead), the parent run's id in checkpoint.json, timestamps (a ledger row's `started` and `finished`, Optuna
trial start/end, MLflow run times), and summary.json's `wall_s` and `model_calls` (the calls the last
process made itself: 0 when everything was cached; this test counts calls across processes).
"""

from __future__ import annotations

import json
import multiprocessing
import random
import shutil
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import kill9_child
from waits import Stopwatch

PROFILE = "name: slow\nextends: baseline\nlatency: {dist: fixed, mean_s: 0.01}\n"
# site -> (points there, the largest n drawn: small, so that one kill does not skip much of the search)
SITES = {"rollout.run": (4, 6), "rollout.put": (3, 6), "ledger.append": (4, 1), "write:checkpoint.json": (3, 1),
         "optuna.add": (2, 3), "mlflow.parent": (1, 1), "mlflow.candidate": (2, 3), "mlflow.finish": (1, 1)}
ROUNDS = 5
FIRST, LAST = "mlflow.parent", "mlflow.finish"  # only a fresh search reaches the first; the last ends a search
# what a search imports, some of it lazily (MLflow's SQL store and its migrations, the toy suite)
PRELOAD = ["kill9_child", "harnessx.cli.main", "harnessx.sim", "harnessx.search.loop", "harnessx.envs.toy", "litellm",
           "optuna", "mlflow", "mlflow.store.tracking.sqlalchemy_store", "mlflow.store.db.utils",
           "mlflow.store.analytics", "mlflow.utils.crypto", "alembic.command", "alembic.config",
           "alembic.runtime.migration", "sqlalchemy.dialects.sqlite", "mako.template", "pygments.formatters.html"]


def points() -> list[tuple[str, float]]:
    """Seeded: the sites in a shuffled order (the parent run's creation first, the search's last write
    last), each with a uniform draw that picks its hit number in the state the chain is in then."""
    rng = random.Random(22)
    kinds = [site for site, (count, _) in SITES.items() for _ in range(count)]
    rng.shuffle(kinds)
    kinds.sort(key=lambda site: (site != FIRST) + (site == LAST))  # stable: the shuffle stays in between
    return [(site, rng.random()) for site in kinds]


def hit_number(site: str, draw: float, root: Path, reference: dict) -> int | None:
    """n for `site` in this run directory's state, at most the hits the rest of the search surely makes
    there (None if it may make none: a later point goes first). After the last checkpointed round c,
    rounds c+1..ROUNDS are each appended to the ledger and checkpointed (and the search's end
    checkpoints once more); every rollout the uninterrupted run paid and that has no record here yet
    is started, every candidate without its Optuna trial adds one, every one without a FINISHED MLflow
    run logs one. (If a resumed search skipped any of that, its point is not reached: a failure.)"""
    run = root / "runs" / "k"
    if not (run / "config.json").is_file():
        return 1 if site in (FIRST, "rollout.run", "rollout.put") else None  # a fresh chain: kill it early
    c = json.loads((run / "checkpoint.json").read_text())["round"] if (run / "checkpoint.json").is_file() else -1
    rows = len(reference["ledger"])
    unpaid = len(reference["paid"] - records(root))
    sure = {FIRST: 0, LAST: 1, "write:checkpoint.json": ROUNDS - c + 1, "ledger.append": ROUNDS - c,
            "optuna.add": rows - len(trials(run)) if (run / "optuna.log").is_file() else rows,
            "mlflow.candidate": rows - len(finished_candidates(root)), "rollout.run": unpaid, "rollout.put": unpaid}
    bound = min(sure[site], SITES[site][1])
    return 1 + int(draw * bound) if bound >= 1 else None


def trials(run: Path) -> list:
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    study = optuna.load_study(study_name="k", storage=JournalStorage(JournalFileBackend(str(run / "optuna.log"))))
    return [(t.number, t.state.name, t.value, t.params, t.intermediate_values,
             {k: v for k, v in t.user_attrs.items() if k != "mlflow_run_id"}) for t in study.get_trials()]


def finished_candidates(root: Path) -> list:
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri(root))
    experiment = client.get_experiment_by_name("harnessx-search")
    if experiment is None:
        return []
    return [r for r in client.search_runs([experiment.experiment_id], max_results=1000)
            if "mlflow.parentRunId" in r.data.tags and r.info.status == "FINISHED"]


def uri(root: Path) -> str:
    return f"sqlite:///{root / 'mlflow.db'}"


def argv(root: Path) -> list[str]:
    args = ["search", "--env", "toy", "--model", "sim/slow.yaml", "--rounds", str(ROUNDS), "--proposals", "2",
            "--concurrency", "4", "--tracking-uri", uri(root), "--name", "k"]
    return args + (["--resume"] if (root / "runs" / "k" / "config.json").is_file() else [])


@dataclass
class Chain:
    root: Path
    pids: list[int] = field(default_factory=list)  # its processes, in order
    seconds: list[float] = field(default_factory=list)  # each one's wall time
    kills: list[tuple[str, int, int]] = field(default_factory=list)  # site, n, last checkpointed round
    on_disk: dict[int, set[str]] = field(default_factory=dict)  # killed pid -> keys with a record then


class Searches:
    """Search processes forked from one pre-imported interpreter; each is killed or exits on its own."""

    def __init__(self, tmp: Path):
        from mlflow import MlflowClient

        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(PRELOAD)
        self.template = tmp / "empty-mlflow.db"
        self.full_search = Stopwatch()  # the uninterrupted search's wall time, measured by the first run
        MlflowClient(tracking_uri=f"sqlite:///{self.template}").search_experiments()

    def run(self, chain: Chain, failpoint: str = "") -> int:
        root = chain.root
        proc = self.ctx.Process(target=kill9_child.run_cli, args=(
            argv(root), str(root), {"HARNESSX_FAILPOINT": failpoint, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
            str(root / "accounting.log"), str(root / "output.log")))
        if not (root / "mlflow.db").exists():
            shutil.copyfile(self.template, root / "mlflow.db")  # an empty MLflow store, migrated once
        started = time.monotonic()
        proc.start()
        # the first process (the uninterrupted reference) is waited for until it exits; every later one
        # does at most a whole search's work, so 10x the reference's wall time on this machine is a hang
        proc.join(timeout=self.full_search.bound(10) if self.full_search.seconds else None)
        chain.seconds.append(round(time.monotonic() - started, 1))
        if not self.full_search.seconds:
            self.full_search.seconds.append(time.monotonic() - started)
        if proc.exitcode is None:
            proc.kill()
            proc.join()
            raise AssertionError(f"search process hung ({failpoint}; {chain.seconds[-1]} s, 10x the uninterrupted "
                                 f"search's {self.full_search.seconds[0]:.1f} s): {tail(root)}")
        chain.pids.append(proc.pid)
        return proc.exitcode

    def stop(self) -> None:
        from multiprocessing import forkserver

        forkserver._forkserver._stop()  # the server this test started (CPython's hook for stopping it in tests)


def new_chain(path: Path) -> Chain:
    path.mkdir(parents=True)
    (path / "slow.yaml").write_text(PROFILE)
    return Chain(path)


def tail(root: Path) -> str:
    out = root / "output.log"
    return out.read_text(errors="replace")[-3000:] if out.is_file() else "(no output)"


def records(root: Path) -> set[str]:
    """Keys with a finished record (the result file is renamed into place after its trajectory)."""
    return {p.stem for d in (root / "runs" / "k" / "rollouts", root / "runs" / "cache") for p in d.rglob("*.json")}


def accounting(root: Path) -> list[tuple[int, str, str]]:
    lines = (root / "accounting.log").read_text().splitlines()
    return [(int(pid), kind, key) for pid, kind, key in (line.split(" ") for line in lines)]


def outcome(root: Path) -> dict:
    run = root / "runs" / "k"
    summary = json.loads((run / "summary.json").read_text())
    ledger = [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]
    return {"summary": {k: v for k, v in summary.items() if k not in ("model_calls", "wall_s", "sha256")},
            "selected.yaml": (run / "selected.yaml").read_text(),
            "scores": {p.name: p.read_text() for p in sorted((run / "scores").glob("*.jsonl"))},
            "ledger": [{k: v for k, v in row.items() if k not in ("mlflow_run_id", "started", "finished")}
                       for row in ledger],
            "trials": trials(run), "mlflow_ids": [row["mlflow_run_id"] for row in ledger]}


def parent_metrics(root: Path) -> dict[str, list[tuple[int, float]]]:
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri(root))
    parent = json.loads((root / "runs" / "k" / "mlflow.json").read_text())["parent_run"]
    keys = sorted(client.get_run(parent).data.metrics)
    return {k: sorted((m.step, m.value) for m in client.get_metric_history(parent, k)) for k in keys}


def check_mlflow(root: Path, ledger_ids: list[str]) -> int:
    """No run left RUNNING; one FINISHED parent; exactly the ledger's candidate runs FINISHED under it,
    every other candidate run (one a kill interrupted) closed as KILLED. Returns how many of those."""
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri(root))
    experiment = client.get_experiment_by_name("harnessx-search")
    runs = client.search_runs([experiment.experiment_id], max_results=1000)
    assert [r.info.run_id for r in runs if r.info.status == "RUNNING"] == []
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert [p.info.status for p in parents] == ["FINISHED"]
    children = [r for r in runs if "mlflow.parentRunId" in r.data.tags]
    assert {r.data.tags["mlflow.parentRunId"] for r in children} == {parents[0].info.run_id}
    finished = sorted(r.info.run_id for r in children if r.info.status == "FINISHED")
    assert finished == sorted(ledger_ids)
    killed = [r for r in children if r.info.status != "FINISHED"]
    assert {r.info.status for r in killed} <= {"KILLED"}
    return len(killed)


def check_payments(chain: Chain, reference: list[tuple[int, str, str]]) -> int:
    """No rollout re-paid after its record was on disk; the same rollouts paid as the uninterrupted
    run, each one's completing attempt with its model calls. Returns the in-flight rollouts re-paid."""
    ref_rollouts = Counter(key for _, kind, key in reference if kind == "rollout")
    ref_calls = Counter(key for _, kind, key in reference if kind == "call")
    assert set(ref_rollouts.values()) == {1}  # uninterrupted: each rollout paid once
    lines = accounting(chain.root)
    done_before: set[str] = set()
    last: dict[str, int] = {}
    for pid in chain.pids:
        started = [key for p, kind, key in lines if p == pid and kind == "rollout"]
        assert len(started) == len(set(started)), f"a rollout paid twice in one process (pid {pid})"
        assert [k for k in started if k in done_before] == [], f"re-paid after its record was on disk (pid {pid})"
        last.update((k, pid) for k in started)
        done_before |= chain.on_disk.get(pid, set())
    assert set(last) == set(ref_rollouts)
    calls = Counter((p, key) for p, kind, key in lines if kind == "call")
    assert {k: calls[(pid, k)] for k, pid in last.items()} == {k: ref_calls[k] for k in last}
    return sum(1 for _, kind, _ in lines if kind == "rollout") - len(last)


@pytest.mark.slow
def test_kill9_at_20_seeded_points_then_resume_equals_the_uninterrupted_search(tmp_path, capsys, monkeypatch,
                                                                               record_property):
    record_property("faults", len(points()))  # bench/faults.py counts each kill as a fault (all lost if this fails)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # the forkserver imports LiteLLM: no cost-map fetch
    searches = Searches(tmp_path)
    try:
        reference = new_chain(tmp_path / "reference")
        assert searches.run(reference) == 0, tail(reference.root)
        expected = outcome(reference.root)
        expected_paid = {"ledger": expected["ledger"], "paid": {key for _, kind, key in accounting(reference.root)
                                                                if kind == "rollout"}}
        chains: list[Chain] = []
        chain: Chain | None = None
        pending = points()
        while pending:
            chain = chain or new_chain(tmp_path / f"chain{len(chains)}")
            ready = [(i, n) for i, (site, draw) in enumerate(pending)
                     if (n := hit_number(site, draw, chain.root, expected_paid)) is not None
                     and (site != LAST or len(pending) == 1)]  # a kill there leaves only the search's end
            if not ready:  # no point left that this search surely reaches: finish it, go on in a new one
                assert searches.run(chain) == 0, tail(chain.root)
                chains.append(chain)
                chain = None
                continue
            i, n = ready[0]
            site = pending.pop(i)[0]
            checkpoint = chain.root / "runs" / "k" / "checkpoint.json"
            done = json.loads(checkpoint.read_text())["round"] if checkpoint.is_file() else -1
            code = searches.run(chain, f"{site}:{n}")
            assert code == -signal.SIGKILL, f"{site}:{n} not reached (exit {code}): {tail(chain.root)}"
            chain.kills.append((site, n, done))
            chain.on_disk[chain.pids[-1]] = records(chain.root)
        assert searches.run(chain) == 0, tail(chain.root)  # the last resume, with nothing armed
        chains.append(chain)
    finally:
        searches.stop()

    assert sum(len(c.kills) for c in chains) == len(points()) >= 20  # every point a real kill
    assert {site for c in chains for site, _, _ in c.kills} == set(SITES)
    reference_lines = accounting(reference.root)
    for c in chains:
        got = outcome(c.root)
        killed_runs = check_mlflow(c.root, got.pop("mlflow_ids"))
        repaid = check_payments(c, reference_lines)
        assert got == {k: v for k, v in expected.items() if k != "mlflow_ids"}
        assert parent_metrics(c.root) == parent_metrics(reference.root)  # each step logged once, same values
        with capsys.disabled():
            print(f"\n{c.root.name}: {len(c.kills)} kills {c.kills}; in-flight rollouts re-paid {repaid}; "
                  f"candidate MLflow runs closed as KILLED {killed_runs}; process seconds {c.seconds}; "
                  f"reference {reference.seconds}")
