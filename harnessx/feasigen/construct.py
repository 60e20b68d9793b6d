"""The construction pipeline (digest §3.1): run k agent systems on the originals of a closed tool
set, keep successful traces, reduce each to its tool-name set, intersect, filter, mask, check.

Retention (`retention`):
- `all` (default, the digest's best reading of footnote 2): every one of the k systems succeeded
  and the intersection of their tool sets is non-empty;
- `partial`: at least `min_success` systems succeeded; the intersection is over those.
Then the masked task must pass the mechanical check (`check.py`); tasks that fail it, or whose
check could not run, are rejected and listed with the reason. Flags (`masking.py`) are kept on
the task and listed; `drop_flagged` rejects flagged tasks too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.envs.base import AbandonSpec, Suite
from harnessx.errors import InputError
from harnessx.scoring.scored import require_scored
from harnessx.feasigen import masking
from harnessx.feasigen.check import mechanical_check, replay
from harnessx.feasigen.protocol import TURN_CAPS, decision, stop_harness, tools_used
from harnessx.feasigen.suite import write_suite
from harnessx.harness.model import Harness
from harnessx.models.client import ModelClient
from harnessx.models.preflight import preflight_all
from harnessx.tasks import Task

Retention = Literal["all", "partial"]
DEFAULT_SYSTEMS = ("sim/baseline", "sim/weak", "sim/ideal")


@dataclass(frozen=True)
class BuildConfig:
    env: str
    systems: tuple[str, ...] = DEFAULT_SYSTEMS
    out: str = "runs/feasigen-suite"
    turn_cap: int | None = None          # default: the benchmark's (TURN_CAPS)
    retention: Retention = "all"
    min_success: int = 2                 # `partial` only
    drop_flagged: bool = False
    splits: tuple[str, ...] = ()         # originals from these splits (empty: all)
    limit: int = 0                       # at most this many originals (0: all)
    seed: int = 0
    concurrency: int = 8
    api_base: str | None = None
    suite_options: dict = field(default_factory=dict)

    def cap(self) -> int:
        return self.turn_cap or TURN_CAPS.get(self.env, 15)

    def validate(self) -> None:
        if len(self.systems) < 1:
            raise InputError("--model", "no agent system given", "one or more LiteLLM model strings")
        if self.retention not in ("all", "partial"):
            raise InputError("--retention", f"unknown rule {self.retention!r}", "all or partial")
        if self.retention == "partial" and not 1 <= self.min_success <= len(self.systems):
            raise InputError("--min-success", f"{self.min_success} is not between 1 and {len(self.systems)}")


@dataclass
class Trace:
    system: str
    success: bool
    stopped: bool
    status: str
    tools: list[str]
    detail: str = ""  # an excluded rollout's error (the provider's or the environment's)


def originals(suite: Suite, config: BuildConfig) -> list[Task]:
    tasks = [t for t in suite.tasks() if t.feasible and (not config.splits or t.split in config.splits)]
    if not tasks:
        raise InputError("--env", f"environment {config.env!r} has no feasible tasks in {config.splits or 'any split'}")
    return tasks[: config.limit or None]


async def run_systems(suite: Suite, tasks: list[Task], harness: Harness, config: BuildConfig,
                      cache_dir: Path) -> dict[str, list[Trace]]:
    """Every system on every original (one seed), through the normal cached runner."""
    traces: dict[str, list[Trace]] = {t.id: [] for t in tasks}
    for system in config.systems:
        runner = Runner(suite, ModelClient(system, api_base=config.api_base), RolloutCache(cache_dir),
                        concurrency=config.concurrency)
        for result in await runner.run_many(harness, tasks, [config.seed]):
            traj = runner.trajectory(result)
            stopped = decision(traj).stopped
            ok = result.status == "ok" and result.reward is not None and result.reward >= 1.0 and not stopped
            errors = traj.of_kind("error") if result.exclusion else []
            detail = str(errors[-1].data.get("detail", ""))[:500] if errors else ""
            traces[result.task_id].append(Trace(system, ok, stopped, result.status, tools_used(traj, config.env), detail))
    return traces


def critical_tools(traces: list[Trace], config: BuildConfig) -> tuple[list[str] | None, str]:
    """C_i = ∩ S_i^(j) over the successful traces, or None with the reason the task is dropped."""
    good = [t for t in traces if t.success]
    failed = sorted({f"{t.system}: {t.status}" for t in traces if t.status in ("env_failure", "model_failure")})
    needed = len(config.systems) if config.retention == "all" else config.min_success
    if failed and len(good) < needed:  # the rule cannot be decided without the rollouts that did not run
        return None, f"not run: {', '.join(failed)} (excluded, never counted as the system's failure)"
    if config.retention == "all" and len(good) < len(config.systems):
        return None, f"retention: {len(good)}/{len(config.systems)} systems succeeded (rule: all)"
    if config.retention == "partial" and len(good) < config.min_success:
        return None, f"retention: {len(good)} systems succeeded (rule: at least {config.min_success})"
    sets = [set(t.tools) for t in good]
    common = set.intersection(*sets) if sets else set()
    if not common:
        return None, "retention: the successful traces share no tool"
    return sorted(common), ""


async def _pool(suite: Suite, env: str, task: Task) -> frozenset[str] | None:
    """The offered tool names (None for terminal: the sandbox PATH, looked up per name)."""
    if env == "terminal":
        return None
    e = suite.make_env()
    try:
        return frozenset(t.name for t in (await e.reset(task, AbandonSpec(mode="none"))).tools)
    finally:
        await e.cleanup()


async def build(suite: Suite, config: BuildConfig, harness: Harness | None = None) -> dict:
    """Run the pipeline and write the suite to `config.out`; returns the manifest."""
    config.validate()
    out = Path(config.out)
    harness = harness or stop_harness(config.cap())
    tasks = originals(suite, config)
    # every construction system must answer before any rollout is run or anything is written
    await preflight_all([ModelClient(system, api_base=config.api_base) for system in config.systems])
    traces = await run_systems(suite, tasks, harness, config, out / "construction-rollouts")
    require_scored("feasigen build", sum(map(len, traces.values())),
                   [{"task_id": task_id, "seed": config.seed, "exclusion": t.status, "detail": f"{t.system}: {t.detail}"}
                    for task_id, ts in traces.items() for t in ts if t.status in ("env_failure", "model_failure")])
    kept: list[Task] = []
    records, rejected = {}, {}
    for task in tasks:
        record = {"traces": [asdict(t) for t in traces[task.id]]}
        critical, why = critical_tools(traces[task.id], config)
        if critical is None:
            rejected[task.id] = why
            records[task.id] = record
            continue
        pool = await _pool(suite, config.env, task)
        _, observations, _ = await replay(suite, task)
        flags = masking.equivalent_left(config.env, set(critical), pool) + \
            masking.query_grounded(task, set(critical), observations)
        record.update(critical_tools=critical, flags=flags)
        infeasible = masking.infeasible_of(task, critical, config.env,
                                           {"critical_tools": critical, "flags": flags, "systems": list(config.systems)})
        check = await mechanical_check(suite, infeasible, task)
        record["check"] = check.to_dict()
        records[task.id] = record
        if not check.passed:
            rejected[task.id] = f"mechanical check: {check.error or f'gold replay without {critical} still reached the goal'}"
            continue
        if flags and config.drop_flagged:
            rejected[task.id] = "flagged: " + "; ".join(flags)
            continue
        infeasible = infeasible.model_copy(update={"metadata": {**infeasible.metadata, "feasigen": {
            **infeasible.metadata["feasigen"], "check": check.to_dict()}}})
        kept += [masking.original_of(task, config.env, infeasible.id), infeasible]
    kept_ids = {t.source_id for t in kept}
    # originals without an infeasible twin stay in Task_original (SR is measured on all of them)
    kept += [masking.original_of(t, config.env, None) for t in tasks if t.source_id not in kept_ids]
    manifest = {"source_env": config.env, "source_options": config.suite_options, "dataset": config.env,
                "config": {**asdict(config), "harness": harness.name, "harness_hash": harness.hash},
                "n_original": len(tasks), "n_infeasible": sum(not t.feasible for t in kept),
                "flagged": {k: r["flags"] for k, r in records.items() if r.get("flags")},
                "rejected": rejected, "records": records}
    write_suite(out, kept, manifest)
    return manifest
