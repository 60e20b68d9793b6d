"""What eval, compare and the probes set up alike: settings from the runs, the runner, the tasks
of each split, the output directory and a progress bar."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.agent.sampling import SamplingDefaults
from harnessx.agent.shared_cache import shared_cache
from harnessx.comparison.runs import Contender, run_setting
from harnessx.envs.base import Suite
from harnessx.envs.registry import DEFAULT_ENV
from harnessx.errors import InputError, one_of
from harnessx.formatting.progress import ProgressConfig, RunProgress
from harnessx.models.client import DEFAULT_MODEL, ModelClient
from harnessx.io_write import check_out_dir
from harnessx.models.preflight import preflight
from harnessx.scoring import Judge, LLMJudge
from harnessx.tasks import Task

SPLITS = ("search", "heldout", "independent")


def settings(contenders: list[Contender], env: str | None, model: str | None, api_base: str | None) -> tuple[str, str, str | None]:
    """Explicit options win; else what the runs agree on; else the defaults."""
    return (env or run_setting(contenders, "env") or DEFAULT_ENV,
            model or run_setting(contenders, "model") or DEFAULT_MODEL,
            api_base or (run_setting(contenders, "api_base") if not model else None))


def sampling(contenders: list[Contender], temperature: float | None = None, top_p: float | None = None,
             seed: int | None = None, reasoning_effort: str | None = None) -> SamplingDefaults:
    """--temperature / --top-p / --reasoning-effort when given, else what the runs searched with, else
    0 / unset / unset; --seed or 0."""
    if temperature is None:
        temperature = float(run_setting(contenders, "temperature") or 0.0)
    if top_p is None:
        recorded = run_setting(contenders, "top_p")
        top_p = float(recorded) if recorded is not None else None
    return SamplingDefaults(temperature=temperature, top_p=top_p, seed=seed or 0,
                            reasoning_effort=reasoning_effort or run_setting(contenders, "reasoning_effort"))


def suite_options(contenders: list[Contender], given: dict, env: str | None = None) -> dict:
    """Suite options (--tau2-dir, --tasks-dir, ...): explicit ones win over what the runs recorded;
    a run searched on another env than `env` (a transfer) lends none."""
    recorded = {}
    for contender in contenders:
        if contender.run and (env is None or contender.run.config.get("env", env) == env):
            recorded.update(contender.run.config.get("suite_options") or {})
    return {**recorded, **{k: v for k, v in given.items() if v is not None}}


def single_run(contenders: list[Contender]) -> Path | None:
    """The run directory when every contender comes from one search run."""
    paths = {c.run.path for c in contenders if c.run}
    return paths.pop() if len(paths) == 1 and all(c.run for c in contenders) else None


def evaluation_key(contenders: list[Contender], kind: str, **defining: object) -> dict:
    """Everything that defines an evaluation (harnesses, env and suite options, model and base URL,
    splits, epochs, sources, judge): two evaluations share an output file only if all of it agrees."""
    return {"kind": kind, "harnesses": [f"{c.label}:{c.harness.hash}" for c in contenders],
            **{k: defining[k] for k in sorted(defining)}}


def key_digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:10]


def out_dir(contenders: list[Contender], kind: str, out: str | None, digest: str | None = None) -> Path:
    """--out, else `<run>/<kind>` for one run, else `runs/<kind>-<digest>`; `digest` is the evaluation
    key's (every defining setting), or for the probes the harnesses' alone."""
    if out:
        return check_out_dir(out)
    run = single_run(contenders)
    if run is not None:
        return run / kind
    digest = digest or hashlib.sha256("|".join(f"{c.label}:{c.harness.hash}" for c in contenders).encode()).hexdigest()[:10]
    return Path("runs") / f"{kind.replace('/', '-')}-{digest}"


def make_runner(suite: Suite, model: str, api_base: str | None, contenders: list[Contender], out: Path,
                concurrency: int, sampling: SamplingDefaults | None = None) -> Runner:
    """A cached runner: one search run's own rollout cache when there is one, else `<out>/rollouts`.
    `sampling` sets the client's defaults (part of every rollout key, so draws never mix)."""
    sampling = sampling or SamplingDefaults()
    client = ModelClient(model, api_base=api_base, temperature=sampling.temperature, top_p=sampling.top_p,
                         reasoning_effort=sampling.reasoning_effort)
    asyncio.run(preflight(client))  # a model that cannot answer stops here, before anything is written
    run = single_run(contenders)
    cache = RolloutCache(run / "rollouts" if run else out / "rollouts", shared=shared_cache((run or out).parent))
    return Runner(suite, client, cache, concurrency=concurrency)


def default_splits(suite: Suite) -> list[str]:
    """heldout when the suite has held-out tasks; else every split it has (a suite without splits,
    such as toy or a --tasks-dir of TB2 tasks, has only `search`), labelled as such in every table."""
    present = [s for s in SPLITS if any(not t.metadata.get("load_error") for t in suite.tasks(s))]
    return ["heldout"] if "heldout" in present else present or ["heldout"]


def split_tasks(suite: Suite, splits: list[str], sources: int = 0) -> dict[str, list[Task]]:
    """The tasks of each split; with `sources`, only those of its first that many source ids."""
    out = {}
    for split in splits:
        if split not in SPLITS:
            raise InputError("--split", f"unknown split {split!r}", one_of(SPLITS))
        tasks = suite.tasks(split)
        if not tasks:
            raise InputError("--split", f"environment {suite.name!r} has no {split!r} tasks")
        keep = list(dict.fromkeys(t.source_id for t in tasks))[: sources or None]
        out[split] = [t for t in tasks if t.source_id in set(keep)]
    return out


def make_judge(judge_model: str | None, out: Path) -> Judge | None:
    """The --judge-model's rubric judge, pre-flighted like the task model (before any rollout)."""
    if not judge_model:
        return None
    judge = LLMJudge(judge_model, cache_dir=out / "judge")
    asyncio.run(preflight(judge.client))
    return judge


@contextmanager
def progress_bar(total: int | None, label: str, console: Console | None = None) -> Iterator[Callable]:
    """The command's progress display over `total` rollouts (None: not known up front); yields the
    callback the runner calls per rollout, which adds the rollout's cost to the cost so far."""
    with RunProgress(ProgressConfig(label, transient=True), console or Console()) as progress:
        if total is not None:
            progress.plan(total)
        spent = [0.0]

        def seen(result) -> None:
            spent[0] += result.usage.cost_usd
            progress.advance(spent[0])

        yield seen
