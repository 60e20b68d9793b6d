"""Contracts every registered benchmark must meet (the list is read from the registry, so a new
benchmark is tested here without editing this file):

- an excluded rollout (environment failure, model failure, tampered) is named, with its detail, and
  the benchmark's scorer never sees it, so it counts in no metric and no objective;
- on a small suite of its tasks, run by the simulated agent, every objective it declares is measured
  (n > 0 valid trials);
- its headline metrics (what a search summarises per round) are measured on the same suite.
"""

from __future__ import annotations

import asyncio
import functools

import litellm
import pytest

from harnessx.agent.runner import Runner
from harnessx.agent.runtime import run_rollout
from harnessx.benchmarks.registry import BENCHMARKS, get_benchmark, score_trial
from harnessx.envs.registry import all_suites, get_suite
from harnessx.envs.toy import ToyEnv, ToySuite
from harnessx.errors import InputError
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.models.providers import register_script
from harnessx.scoring import Scorecard
from harnessx.search.headline import headline_metric

# Benchmarks whose tasks exist only after a build step (no suite of `envs/registry` yields them without
# options): the objective contract cannot run them offline in seconds; the exclusion contract still does.
NEEDS_A_BUILT_SUITE = {"feasigen": "`harnessx feasigen build` writes its tasks (tests/test_feasigen_build.py)"}
SMALL = 24  # tasks per benchmark for the objective contract


class BrokenEnv(ToyEnv):
    async def execute(self, call):
        raise OSError("sandbox died")


def _down(messages, tools, metadata):
    raise litellm.AuthenticationError("key revoked", llm_provider="scripted", model="contract-down")


DOWN = register_script("contract-down", _down)


@functools.cache
def toy_rollouts():
    """(task, ok, env failure, model failure): real rollouts of one toy task, each with its trajectory."""
    task = ToySuite(2).tasks("search")[0]
    harness = load_preset("A1")
    run = lambda env, model: asyncio.run(run_rollout(harness, task, env, ModelClient(model, max_retries=0,  # noqa: E731
                                                                                     backoff_s=0.0), seed=0))
    return task, run(ToyEnv(), "sim/baseline"), run(BrokenEnv(), "sim/baseline"), run(ToyEnv(), DOWN)


def as_benchmark(task, name: str):
    return task.model_copy(update={"metadata": {**task.metadata, "benchmark": name}})


def excluded_cases():
    task, ok, env_failure, model_failure = toy_rollouts()
    tampered = (ok[0].model_copy(update={"reward": 1.0 - (ok[0].reward or 0.0)}), ok[1])  # the result lies
    return {"env_failure": env_failure, "model_failure": model_failure, "tampered": tampered}


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
@pytest.mark.parametrize("why", ["env_failure", "model_failure", "tampered"])
def test_an_excluded_rollout_is_named_and_never_reaches_the_benchmark(name, why, monkeypatch):
    benchmark = get_benchmark(name)
    seen = []
    monkeypatch.setattr(type(benchmark), "score", lambda self, *args: seen.append(args) or pytest.fail("scored"))
    task, _, _, _ = toy_rollouts()
    result, trajectory = excluded_cases()[why]
    score = score_trial(as_benchmark(task, name), trajectory, result)
    assert not seen, f"{name} saw an excluded rollout"
    assert (score.valid, score.exclusion) == (False, why)
    assert score.exclusion_detail, f"{name}: {why} carries no detail"
    card = Scorecard.from_scores([score])
    assert card.excluded == {why: 1}
    for objective in benchmark.objectives.values():
        rate = objective.rate(card)
        assert rate.n == 0 and rate.value is None, f"{name}: objective {objective.name} counted an excluded trial"


@functools.cache
def suites_by_benchmark() -> dict[str, str]:
    """The first environment of the registry (in its order) whose search tasks belong to each benchmark."""
    found: dict[str, str] = {}
    for env in all_suites():
        try:
            tasks = get_suite(env).tasks("search")
        except (InputError, ImportError):
            continue  # needs options (a built suite's directory) or an extra
        for task in tasks:
            found.setdefault(task.metadata.get("benchmark", "asa"), env)
    return found


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_declared_objective_and_headline_metric_is_measured_on_a_small_suite(name):
    if name in NEEDS_A_BUILT_SUITE:
        assert name not in suites_by_benchmark()  # once it has an option-free suite, it must run here
        pytest.skip(f"{name}: {NEEDS_A_BUILT_SUITE[name]}")
    assert name in suites_by_benchmark(), f"no environment of envs/registry yields tasks of benchmark {name!r}"
    suite = get_suite(suites_by_benchmark()[name])
    tasks = [t for t in suite.tasks("search") if t.metadata.get("benchmark", "asa") == name]
    blocked, feasible = [t for t in tasks if not t.feasible], [t for t in tasks if t.feasible]
    tasks = blocked[: SMALL // 2] + feasible[: SMALL - min(len(blocked), SMALL // 2)]
    # a benchmark's objective may apply to a subset (CF's `nas` to OK items): keep a task of each
    for objective in get_benchmark(name).objectives.values():
        if not objective.tasks(tasks):
            tasks += objective.tasks(suite.tasks("search"))[:1]
    evaluation = asyncio.run(evaluate(Runner(suite, ModelClient("sim/baseline")), load_preset("A1"), tasks, [0]))
    card = evaluation.scorecard
    benchmark = get_benchmark(name)
    assert benchmark.objectives, f"{name} declares no objective"
    for objective in benchmark.objectives.values():
        rate = objective.rate(card)
        assert rate.n > 0 and rate.value is not None, f"{name}: objective {objective.name} measured on no trial"
    assert benchmark.headline, f"{name} declares no headline metrics"
    for key in benchmark.headline:
        assert headline_metric(card, key).n > 0, f"{name}: headline metric {key} measured on no trial"


@pytest.mark.parametrize("name", list(BENCHMARKS))
def test_a_benchmarks_objective_names_are_the_keys_of_its_objectives(name):
    # the CLI checks --objective against `objective_names` before importing the scoring
    benchmark = get_benchmark(name)
    assert tuple(benchmark.objective_names) == tuple(benchmark.objectives)
