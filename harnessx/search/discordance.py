"""Discordance from data: how often two rollouts of the same task disagree, for the planner's MDE.

The planner's variance per task is `discordance / E`, with discordance = P(outcomes differ) for a
(task, seed) pair of two harnesses (for values in [0, 1], the mean squared difference, which equals
it for 0/1 outcomes). Between two harnesses that behave alike (the null every test guards against)
it is the disagreement of one harness with itself across seeds, which R0's rollouts measure:

- two or more seeds per task: the mean over tasks of the mean squared difference over seed pairs
  (for 0/1 outcomes, the share of seed pairs that disagree) — an unbiased estimate;
- one seed per task: 2·p·(1 − p) at the pooled success rate p (2 × the variance across tasks), an
  upper bound, since it counts task-to-task differences as noise;
- no rollouts: 0.5 (independent rollouts at p = 0.5), assumed and said so.

A run directory (`--from-run`) holds more: R0 and every candidate on the same tasks and seeds, so
the discordance is measured where the planner uses it, between R0 and each fully evaluated candidate
under the runner's own pairing (a simulator's common random numbers, a real model's sampling).

R0's rollouts come from a run directory's per-trial scores (`--from-run`), from a pilot of R0 over 2
seeds (`harnessx plan --pilot`, written to the shared rollout cache so the search reuses them), or,
in the search's pre-flight, from that cache when it already holds them (never paying for one).
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from harnessx.agent.runner import RolloutCache, Runner, rollout_key
from harnessx.agent.sampling import epoch_seeds
from harnessx.agent.shared_cache import shared_cache
from harnessx.errors import InputError
from harnessx.evaluation import Evaluation, evaluate
from harnessx.harness import Harness
from harnessx.scoring.objective import Objective
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task

PILOT_SEEDS = 2


@dataclass(frozen=True)
class Discordance:
    value: float
    source: str          # where the figure comes from, printed next to it
    tasks: int = 0       # tasks the estimate rests on (0 = assumed)

    def line(self) -> str:
        return f"discordance {self.value:.3f}: {self.source}"


ASSUMED = Discordance(0.5, "ASSUMED, not estimated: no R0 rollouts to estimate it from (0.5 = independent rollouts "
                           "at p = 0.5, the largest); `harnessx plan --pilot` or --from-run RUN estimates it")


def estimate(outcomes: dict[str, dict[int, float]], where: str) -> Discordance | None:
    """From per-task outcomes by seed (values in [0, 1]); None when there is none."""
    outcomes = {t: s for t, s in outcomes.items() if s}
    if not outcomes:
        return None
    repeated = {t: list(s.values()) for t, s in outcomes.items() if len(s) >= 2}
    if repeated:
        per_task = [sum((a - b) ** 2 for a, b in combinations(v, 2)) / (len(v) * (len(v) - 1) / 2)
                    for v in repeated.values()]
        seeds = max(len(v) for v in repeated.values())
        value = sum(per_task) / len(per_task)
        return Discordance(max(value, 1e-3), f"estimated from R0's rollouts ({where}): disagreement across "
                                             f"{seeds} seeds on {len(repeated)} tasks", len(repeated))
    values = [v for s in outcomes.values() for v in s.values()]
    mean = sum(values) / len(values)
    spread = 2 * sum((v - mean) ** 2 for v in values) / len(values)
    return Discordance(max(spread, 1e-3), f"upper bound from R0's rollouts ({where}): one seed per task on "
                                          f"{len(values)} tasks, 2 p (1 - p) at p = {mean:.3f}", len(values))


def outcomes_of(evaluation: Evaluation, objective: Objective) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = defaultdict(dict)
    for score in evaluation.scores:
        value = objective.trial_value(score)
        if value is not None:
            out[score.task_id][score.seed] = float(value)
    return dict(out)


def from_run(run: Path, objective: Objective) -> Discordance | None:
    """From a search run's per-trial scores (`scores/<hash>.jsonl`): the discordant share of (task, seed)
    pairs between R0 and each candidate evaluated on the same pairs (the runner's own pairing), else
    R0's own spread; None when the run has no R0 scores."""
    r0_file = run / "r0.yaml"
    scores = run / "scores"
    r0 = scores / f"{Harness.load(r0_file).hash}.jsonl" if r0_file.is_file() else None
    if r0 is None or not r0.is_file():
        return None
    base = read_scores(r0, objective)
    shares = []
    for path in sorted(scores.glob("*.jsonl")):
        other = read_scores(path, objective) if path != r0 else {}
        pairs = [(v, other[t][s]) for t, seeds in base.items() for s, v in seeds.items() if s in other.get(t, {})]
        if pairs and len(pairs) * 2 >= sum(len(v) for v in base.values()):  # a full evaluation, not a screen
            shares.append(sum((a - b) ** 2 for a, b in pairs) / len(pairs))
    if shares:
        return Discordance(max(sum(shares) / len(shares), 1e-3), f"estimated from run {run.name}: R0 against its "
                           f"{len(shares)} fully evaluated candidate(s), same tasks and seeds", len(base))
    return estimate(base, f"run {run.name}")


def read_scores(path: Path, objective: Objective) -> dict[str, dict[int, float]]:
    """Per-task objective values by seed from one `scores/<hash>.jsonl` (valid trials of its strata)."""
    out: dict[str, dict[int, float]] = defaultdict(dict)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}", f"not JSON: {exc}") from None
        score = TaskScore.model_validate({k: v for k, v in row.items() if k in TaskScore.model_fields})
        value = objective.trial_value(score)
        if value is not None and ("feasible" if score.feasible else "blocked") in objective.strata:
            out[score.task_id][score.seed] = float(value)
    return dict(out)


async def pilot(runner: Runner, r0: Harness, tasks: list[Task], objective: Objective, seed: int = 0) -> Discordance:
    """R0 over PILOT_SEEDS seeds on `tasks` (paid once: the runner's cache keeps them)."""
    evaluation = await evaluate(runner, r0, tasks, epoch_seeds(seed, PILOT_SEEDS))
    return estimate(outcomes_of(evaluation, objective), f"pilot, {PILOT_SEEDS} seeds") or ASSUMED


async def from_cache(runner: Runner, r0: Harness, tasks: list[Task], objective: Objective,
                     seed: int, epochs: int) -> Discordance | None:
    """From R0's rollouts already in the runner's cache (a pilot's, a previous run's), for every seed
    of max(PILOT_SEEDS, epochs) that every task has; nothing is run."""
    cache = runner.cache
    seeds = [s for s in epoch_seeds(seed, max(PILOT_SEEDS, epochs))
             if cache is not None and all(cache.get(rollout_key(r0, t, s, runner.model_id)) is not None for t in tasks)]
    if not seeds or not tasks:
        return None
    evaluation = await evaluate(runner, r0, tasks, seeds)
    return estimate(outcomes_of(evaluation, objective), "the rollout cache")


def shared_runner(suite, model, runs_dir: str | Path) -> Runner:
    """A runner on the rollout cache every command of `runs_dir` shares."""
    return Runner(suite, model, RolloutCache(shared_cache(runs_dir), shared=shared_cache(runs_dir)))


@dataclass(frozen=True)
class DiscordanceSource:
    """Where `harnessx plan` looks for R0's rollouts: the suite, model, R0 and search tasks, the search's
    seed and epochs, and the runs directory whose shared cache a pilot fills."""

    suite: object
    model: object
    r0: Harness
    tasks: list[Task]
    objective: Objective
    seed: int = 0
    epochs: int = 1
    runs_dir: str = "runs"


def estimate_discordance(source: DiscordanceSource, run: Path | None = None, run_pilot: bool = False) -> Discordance:
    """A run's R0 scores, else a pilot (when asked), else the shared cache, else ASSUMED."""
    if run is not None and (found := from_run(run, source.objective)) is not None:
        return found

    async def look() -> Discordance | None:
        runner = shared_runner(source.suite, source.model, source.runs_dir)
        try:
            if run_pilot:
                return await pilot(runner, source.r0, source.tasks, source.objective, source.seed)
            return await from_cache(runner, source.r0, source.tasks, source.objective, source.seed, source.epochs)
        finally:
            await runner.aclose()

    return asyncio.run(look()) or ASSUMED
