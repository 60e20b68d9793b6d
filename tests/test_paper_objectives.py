"""Search objectives that are the papers' metrics: `kas` is KAPRO's Avg KAS itself (not the mean of
per-task harmonic means), `nas` and `kis` are Confident Fools' NAS and KIS; hand-computed cases."""

import numpy as np
import pytest

from harnessx.benchmarks import with_evaluation_values
from harnessx.kapro.builtin import builtin_items
from harnessx.kapro.sets import kas
from harnessx.scoring import Scorecard, TaskScore
from harnessx.search.objectives import get_objective
from harnessx.tasks import Task

ITEMS = builtin_items()


def kapro_tasks(subspaces: list[str]) -> list[Task]:
    """One built-in task per requested subspace, in order (distinct tasks)."""
    pool = {s: [i for i in ITEMS if i.subspace == s] for s in ("external", "hybrid", "internal")}
    return [pool[s].pop().to_task() for s in subspaces]


def trial(task: Task, jk: float, ja: float, seed: int = 0, passed: float | None = None) -> TaskScore:
    values = {"j_know": jk, "j_act": ja, "kas_task": 0.0 if jk == 0 or ja == 0 else 2 * jk * ja / (jk + ja)}
    if passed is not None:
        values["pass"] = passed
    return TaskScore(task_id=task.id, seed=seed, feasible=True, family=None, source_id=task.source_id,
                     split=task.split, valid=True, values=values)


def objective_value(name: str, tasks: list[Task], scores: list[TaskScore]) -> float:
    scores = with_evaluation_values(scores, tasks)
    return get_objective(name).rate(Scorecard.from_scores(scores)).value


def test_kas_objective_is_avg_kas_by_hand():
    # external: (J_know, J_act) = (1, 1), (1, 0): Acc_know 1, Acc_act 1/2, KAS = 2·1·½/(3/2) = 2/3
    # internal: (0, 1), (0, 1): Acc_know 0, so KAS = 0.  Avg (valid-weighted, 2 and 2) = 1/3.
    # The mean of per-task harmonic means would be (1 + 0 + 0 + 0)/4 = 1/4.
    tasks = kapro_tasks(["external", "external", "internal", "internal"])
    scores = [trial(tasks[0], 1, 1), trial(tasks[1], 1, 0), trial(tasks[2], 0, 1), trial(tasks[3], 0, 1)]
    assert objective_value("kas", tasks, scores) == pytest.approx(1 / 3)
    # kas_pass = (Avg KAS + pass rate) / 2 = (1/3 + 3/4) / 2
    passed = [trial(t, s.values["j_know"], s.values["j_act"], passed=p) for t, s, p in zip(tasks, scores, (1, 1, 0, 1))]
    assert objective_value("kas_pass", tasks, passed) == pytest.approx((1 / 3 + 3 / 4) / 2)


def test_kas_objective_ranks_candidates_as_kas_does():
    # A: (1, 1), (0, 0), (0, 0) -> per-task mean 1/3, KAS = H(1/3, 1/3) = 1/3
    # B: (1, 0), (0, 1), (1, 0) -> per-task mean 0,   KAS = H(2/3, 1/3) = 4/9
    tasks = kapro_tasks(["external"] * 3)
    a = [trial(t, jk, ja) for t, (jk, ja) in zip(tasks, [(1, 1), (0, 0), (0, 0)])]
    b = [trial(t, jk, ja) for t, (jk, ja) in zip(tasks, [(1, 0), (0, 1), (1, 0)])]
    assert objective_value("kas", tasks, a) == pytest.approx(1 / 3)
    assert objective_value("kas", tasks, b) == pytest.approx(4 / 9)
    # the paired rule's per-task differences average to the KAS difference
    share = lambda scores: [s.values["kas_avg"] for s in with_evaluation_values(scores, tasks)]
    assert np.mean(np.subtract(share(b), share(a))) == pytest.approx(4 / 9 - 1 / 3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kas_objective_equals_avg_kas_on_random_evaluations(seed):
    rng = np.random.default_rng(seed)
    subspaces = list(rng.choice(["external", "hybrid", "internal"], size=20))
    tasks = kapro_tasks(subspaces)
    scores = [trial(t, float(rng.choice([0, 0.5, 1])), float(rng.choice([0, 1 / 3, 1])), seed=s)
              for t in tasks for s in (0, 1)]
    by_sub = {s: [(x.values["j_know"], x.values["j_act"]) for x, t in zip(scores, [t for t in tasks for _ in (0, 1)])
                  if t.metadata["kapro"]["subspace"] == s] for s in set(subspaces)}
    want = sum(len(v) * kas(np.mean([a for a, _ in v]), np.mean([b for _, b in v])) for v in by_sub.values()) / 40
    assert objective_value("kas", tasks, scores) == pytest.approx(want)


def cf_task(i: int, kind: str) -> Task:
    item = {"id": f"q{i}", "type": kind}
    return Task(id=f"cf-{kind}-{i}", env="cf", split="search", feasible=True, source_id=f"q{i}",
                instruction="?", metadata={"benchmark": "cf", "condition": "search", "item": item})


def cf_trial(task: Task, label: int) -> TaskScore:
    part = "nas" if task.metadata["item"]["type"] == "OK" else "kis"
    return TaskScore(task_id=task.id, seed=0, feasible=True, family=None, source_id=task.source_id, split="search",
                     valid=True, values={"cf": float(label), part: float(label), f"{part}_judged": float(label)})


def test_nas_and_kis_objectives_by_hand():
    # the paper's with-search judge-free NAS for Mistral: 38 aware, 110 unaware, 43 neutral of 191 OK items
    ok = [cf_task(i, "OK") for i in range(191)]
    ik = [cf_task(i, "IK") for i in range(3)]
    labels = [1] * 38 + [-1] * 110 + [0] * 43
    scores = [cf_trial(t, lab) for t, lab in zip(ok, labels)] + [cf_trial(t, lab) for t, lab in zip(ik, (1, 1, -1))]
    card = Scorecard.from_scores(scores)
    assert round(get_objective("nas").rate(card).value, 3) == -0.377  # (38 − 110) / 191
    assert get_objective("kis").rate(card).value == pytest.approx(1 / 3)  # (2 − 1) / 3
    # a search on NAS runs and counts only OK items; on KIS only IK items
    assert get_objective("nas").tasks(ok + ik) == ok and get_objective("kis").tasks(ok + ik) == ik
    assert get_objective("nas_judged").rate(card).value == pytest.approx(-72 / 191)


@pytest.mark.slow
def test_a_nas_search_runs_only_ok_items_and_reports_nas(tmp_path, monkeypatch):
    import asyncio
    import json

    from harnessx.cf.env import CFSuite
    from harnessx.search import Search, SearchConfig

    monkeypatch.chdir(tmp_path)
    result = asyncio.run(Search(SearchConfig.of(objective="nas", env="cf", rounds=1, proposals=1, runs_dir="runs",
                                             tracking_uri=None)).run())
    summary = json.loads((result.run_dir / "summary.json").read_text())
    ok = [t for t in CFSuite().tasks("search") if t.metadata["item"]["type"] == "OK"]
    r0 = summary["curve"][0]["objective"]
    assert summary["objective"] == "nas" and r0["n"] + r0["excluded"] == len(ok)  # IK items never ran
    assert summary["r0"]["scorecard"]["values"]["nas"]["value"] == pytest.approx(r0["value"])
    assert "kis" not in summary["r0"]["scorecard"]["values"]
