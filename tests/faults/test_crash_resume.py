"""Crash a search at 20 seeded points (mid-rollout, mid-ledger-append, mid-checkpoint, mid-Optuna
write) and resume each: the final selection, the ledger and the Optuna trials equal an uninterrupted
run's, and no rollout whose record was on disk at the crash is paid again.

The crash is an uncatchable exception raised inside the write in progress (after a torn partial
write where a real kill could leave one). A real SIGKILL of a search process, MLflow on, is
test_kill9.py; test_interrupt.py sends SIGINT to one. MLflow is off here (its resume is covered there)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from harnessx.agent import runner as runner_mod
from harnessx.envs.toy import ToySuite
from harnessx.search import Search, SearchConfig
from harnessx.search import rundir as rundir_mod
from harnessx.search import tracking as tracking_mod

N_POINTS = 20


class Killed(BaseException):
    """Not an Exception: nothing in the product catches it, as nothing survives a kill -9."""


def config(root: Path, name: str) -> SearchConfig:
    return SearchConfig.of(env="toy", model="sim/baseline", rounds=2, proposals=2, runs_dir=str(root), name=name,
                        tracking_uri=None, concurrency=4, seed=3)


def run(cfg: SearchConfig, resume: bool = False):
    return asyncio.run(Search(cfg, suite=ToySuite(2)).run(resume=resume))


def trials(run_dir: Path) -> list:
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    import optuna

    study = optuna.load_study(study_name=run_dir.name,
                              storage=JournalStorage(JournalFileBackend(str(run_dir / "optuna.log"))))
    return [(t.number, t.state.name, t.value, t.params, t.user_attrs) for t in study.get_trials()]


def outcome(result) -> tuple:
    clock = ("started", "finished")  # when a round was judged: the clock of the process that judged it
    ledger = [{k: v for k, v in json.loads(line).items() if k not in clock}
              for line in (result.run_dir / "ledger.jsonl").read_text().splitlines()]
    return result.summary["selected"]["hash"], result.summary["curve"], ledger, trials(result.run_dir)


class Injector:
    """Raises Killed at the n-th call of one write, after a torn partial write where one is possible."""

    def __init__(self, monkeypatch, where: str, n: int):
        self.where, self.n, self.count = where, n, 0
        put, append, write = runner_mod.RolloutCache.put, rundir_mod.RunDir.append_ledger, rundir_mod.write_atomic
        add = tracking_mod.OptunaLedger.add
        injector = self

        def tick() -> bool:
            injector.count += 1
            return injector.count == injector.n

        def put_hook(cache, result, traj):
            if where == "rollout" and tick():
                traj.save(cache._paths(result.key)[1])  # the trajectory written, the result file not yet
                raise Killed
            return put(cache, result, traj)

        def append_hook(rd, rows):
            if where == "ledger" and tick():
                text = "".join(json.dumps(r, default=str) + "\n" for r in rows)
                with open(rd / "ledger.jsonl", "a", encoding="utf-8") as fh:
                    fh.write(text[: max(1, len(text) // 2)])  # a torn tail
                raise Killed
            return append(rd, rows)

        def write_hook(path, text):
            if where == "checkpoint" and path.name == "checkpoint.json" and tick():
                path.with_name(path.name + ".tmp").write_text(text[: len(text) // 3])  # renamed never
                raise Killed
            return write(path, text)

        def add_hook(ledger, row, harness):
            if where == "optuna" and tick():
                raise Killed
            return add(ledger, row, harness)

        monkeypatch.setattr(runner_mod.RolloutCache, "put", put_hook)
        monkeypatch.setattr(rundir_mod.RunDir, "append_ledger", append_hook)
        monkeypatch.setattr(rundir_mod, "write_atomic", write_hook)
        monkeypatch.setattr(tracking_mod.OptunaLedger, "add", add_hook)


def points() -> list[tuple[str, int]]:
    rng = random.Random(12)
    limits = {"rollout": 25, "ledger": 3, "checkpoint": 3, "optuna": 5}
    kinds = ["rollout"] * 8 + ["ledger"] * 4 + ["checkpoint"] * 4 + ["optuna"] * 4
    return [(kind, rng.randint(1, limits[kind])) for kind in kinds]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    root = tmp_path_factory.mktemp("reference")
    return outcome(run(config(root, "crash")))


@pytest.mark.slow
@pytest.mark.parametrize("where, n", points())
def test_a_crash_then_resume_equals_the_uninterrupted_search(tmp_path, monkeypatch, reference, where, n):
    cfg = config(tmp_path, "crash")
    with monkeypatch.context() as patch:
        Injector(patch, where, n)
        with pytest.raises(Killed):
            run(cfg)
    on_disk = {p.stem for p in (tmp_path / "crash" / "rollouts").rglob("*.json")}
    repaid = []
    put = runner_mod.RolloutCache.put

    def watch(cache, result, traj):
        if result.key in on_disk:
            repaid.append(result.key)
        return put(cache, result, traj)

    monkeypatch.setattr(runner_mod.RolloutCache, "put", watch)
    resumed = run(cfg, resume=(tmp_path / "crash" / "config.json").is_file())
    assert repaid == []  # no finished rollout paid twice
    assert outcome(resumed) == reference
