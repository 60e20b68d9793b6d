"""`feasigen eval`: single-agent systems on Task_original + Task_infeasible, planner → executor
pairs on Task_infeasible, every metric with its valid n and a 95% CI (digest §3.2–3.3).

Single agents run the `feasigen-stop` preset with the benchmark's turn cap; a pair runs the
planner → executor harness (two planner rounds, at most 8 executor turns) with the planner model
and the executor model as two clients. Multi-agent FASS pools the pair's STOPs on Task_infeasible
with the executor's single-agent SR on Task_original (the executor is evaluated as a single agent
too when it is not among the systems).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harnessx.agent.runner import ProgressFn, RolloutCache, Runner
from harnessx.envs.base import Suite
from harnessx.errors import InputError
from harnessx.benchmarks.evaluate import evaluate
from harnessx.scoring.scored import require_scored
from harnessx.feasigen import metrics
from harnessx.feasigen.benchmark import outcome
from harnessx.feasigen.protocol import TURN_CAPS, planner_executor_harness, stop_harness
from harnessx.harness.model import Harness
from harnessx.models.client import ModelClient
from harnessx.models.preflight import preflight_all
from harnessx.tasks import Task


@dataclass(frozen=True)
class EvalConfig:
    systems: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...] = ()      # (planner, executor)
    splits: tuple[str, ...] = ("heldout",)
    epochs: int = 1
    turn_cap: int | None = None
    concurrency: int = 8
    api_base: str | None = None
    reasoning_effort: str | None = None  # task agent: low/medium/high or a thinking budget
    out: str = "runs/feasigen-eval"
    seed: int = 0
    harness: Harness | None = None  # the single agents' harness (default: the feasigen-stop preset)


@dataclass
class SystemRun:
    name: str
    simulated: bool
    outcomes: list[metrics.Outcome] = field(default_factory=list)
    excluded: dict[str, int] = field(default_factory=dict)
    exclusions: list[dict] = field(default_factory=list)  # one named record per excluded rollout


def parse_pair(text: str) -> tuple[str, str]:
    for sep in ("->", ":", ","):
        if sep in text:
            planner, executor = (p.strip() for p in text.split(sep, 1))
            if planner and executor:
                return planner, executor
    raise InputError("--pair", f"cannot read {text!r}", "PLANNER->EXECUTOR, e.g. sim/ideal->sim/weak")


def suite_tasks(suite: Suite, splits: tuple[str, ...]) -> list[Task]:
    tasks = [t for t in suite.tasks() if t.split in splits]
    if not tasks:
        raise InputError("--split", f"the suite has no tasks in {list(splits)}")
    return tasks


async def run_system(suite: Suite, tasks: list[Task], harness: Harness, model: ModelClient, cache: Path,
                     config: EvalConfig, planner: ModelClient | None = None,
                     progress: ProgressFn | None = None) -> SystemRun:
    runner = Runner(suite, model, RolloutCache(cache), concurrency=config.concurrency, planner_model=planner)
    ev = await evaluate(runner, harness, tasks, list(range(config.seed, config.seed + config.epochs)), progress=progress)
    by_id = {t.id: t for t in tasks}
    name = f"{planner.model} -> {model.model}" if planner else model.model
    run = SystemRun(name, model.simulated or bool(planner and planner.simulated))
    details = {(x["task_id"], x["seed"]): x["detail"] for x in ev.exclusions}
    for result in ev.results:
        o, why = outcome(by_id[result.task_id], runner.trajectory(result), result)
        run.outcomes.append(o)
        if why:
            run.excluded[why] = run.excluded.get(why, 0) + 1
            run.exclusions.append({"task_id": result.task_id, "seed": result.seed, "exclusion": why,
                                   "detail": details.get((result.task_id, result.seed))})
    return run


async def run_eval(suites: list, config: EvalConfig, progress: ProgressFn | None = None) -> dict:
    """Every system on every suite (one dataset each, its own turn cap), outcomes pooled per
    dataset, so "Avg" is the unweighted mean over the suites' datasets; `progress` is called after
    each rollout."""
    clients = {m: ModelClient(m, api_base=config.api_base, reasoning_effort=config.reasoning_effort) for m in {*config.systems, *(x for p in config.pairs for x in p)}}
    await preflight_all(list(clients.values()))  # a model that cannot answer stops here, before any rollout
    singles: dict[str, SystemRun] = {}
    pairs: dict = {}
    total, exclusions = 0, []  # every rollout this command ran, and the excluded ones
    all_tasks: list[Task] = []
    caps = {}
    for suite in suites:
        tasks = suite_tasks(suite, config.splits)
        if twice := sorted({t.id for t in tasks} & {t.id for t in all_tasks}):
            raise InputError("--suite", f"task {twice[0]!r} is in two suites", "suites of different datasets")
        all_tasks += tasks
        dataset = getattr(suite, "source_env", suite.name)
        caps[dataset] = cap = config.turn_cap or TURN_CAPS.get(dataset, 15)
        single = config.harness.with_switches(max_steps=cap) if config.harness else stop_harness(cap)
        cache = Path(config.out) / "rollouts"
        for name in dict.fromkeys([*config.systems, *(e for _, e in config.pairs)]):
            run = await run_system(suite, tasks, single, clients[name], cache, config, progress=progress)
            total, exclusions = total + len(run.outcomes), exclusions + run.exclusions
            _merge(singles, run)
        infeasible = [t for t in tasks if not t.feasible]
        for planner, executor in config.pairs:
            run = await run_system(suite, infeasible, planner_executor_harness(), clients[executor], cache, config,
                                   planner=clients[planner], progress=progress)
            total, exclusions = total + len(run.outcomes), exclusions + run.exclusions
            _merge_pair(pairs, run, planner, executor)
    require_scored("feasigen eval", total, exclusions)
    return assemble(singles, pairs, config, all_tasks, caps)


def _merge(into: dict[str, SystemRun], run: SystemRun) -> None:
    if run.name not in into:
        into[run.name] = run
        return
    into[run.name].outcomes.extend(run.outcomes)
    for k, v in run.excluded.items():
        into[run.name].excluded[k] = into[run.name].excluded.get(k, 0) + v


def _merge_pair(into: dict, run: SystemRun, planner: str, executor: str) -> None:
    if run.name in into:
        _merge({run.name: into[run.name][0]}, run)
    else:
        into[run.name] = (run, planner, executor)


def assemble(singles: dict[str, SystemRun], pairs: dict, config: EvalConfig, tasks: list[Task],
             caps: dict[str, int]) -> dict:
    systems = {name: {"simulated": r.simulated, "excluded": r.excluded, "evaluated": name in config.systems,
                      **metrics.summary(r.outcomes, config.seed)} for name, r in singles.items()}
    multi = {}
    for name, (run, planner, executor) in pairs.items():
        ex = singles[executor].outcomes
        per = {}
        for dataset, group in metrics.by_dataset(run.outcomes).items():
            tokens = metrics.token_costs(group, config.seed)
            per[dataset] = {"fcr": metrics.fcr(group).to_dict(), "stop": metrics.stop_rate(group).to_dict(),
                            "completed_infeasible": metrics.completed_infeasible(group).to_dict(),
                            "stopped_at_planning": sum(o.valid and o.stopped and o.stopped_by == "planner"
                                                       for o in group),
                            "tokens": tokens,
                            "fass": metrics.multi_agent_fass(group, [o for o in ex if o.dataset == dataset]).to_dict(),
                            "executor_sr": metrics.sr([o for o in ex if o.dataset == dataset]).to_dict()}
        groups = metrics.by_dataset(run.outcomes)
        multi[name] = {"planner": planner, "executor": executor, "simulated": run.simulated, "excluded": run.excluded,
                       "datasets": per,
                       "avg": {"fcr": metrics.macro({d: metrics.fcr(g) for d, g in groups.items()}),
                               "fass": metrics.macro({d: metrics.multi_agent_fass(
                                   g, [o for o in ex if o.dataset == d]) for d, g in groups.items()})}}
    points = {n: (s["avg"]["sr"]["value"], s["avg"]["fcr"]["value"]) for n, s in systems.items()
              if s["avg"]["sr"]["value"] is not None and s["avg"]["fcr"]["value"] is not None}
    return {"splits": list(config.splits), "epochs": config.epochs, "turn_caps": caps,
            "executor_max_turns": 8, "planner_rounds": 2,
            "n_original": sum(t.feasible for t in tasks), "n_infeasible": sum(not t.feasible for t in tasks),
            "simulated": any(s["simulated"] for s in systems.values()),
            "systems": systems, "multi_agent": multi,
            "pareto": {"points": points, "non_dominated": metrics.pareto_frontier(points),
                       "convex": metrics.convex_frontier(points)},
            "outcomes": {n: [o.to_dict() for o in r.outcomes] for n, r in singles.items()}
            | {n: [o.to_dict() for o in run.outcomes] for n, (run, _, _) in pairs.items()}}
