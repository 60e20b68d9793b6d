"""`cf eval`'s body: one harness (or the paper's preset per condition) on the CF items in each
condition, through the one runner and evaluation, and every metric per condition (JSON-able)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from harnessx.agent.runner import ProgressFn, RolloutCache, Runner
from harnessx.cf.benchmark import CF, DEFAULT_JUDGE
from harnessx.cf.env import CFSuite
from harnessx.cf.judge import LLMAlignmentJudge
from harnessx.cf.labels import CONDITIONS
from harnessx.errors import InputError, one_of
from harnessx.benchmarks.evaluate import evaluate, require_evaluated
from harnessx.harness import Harness, load_preset
from harnessx.io_write import write_atomic
from harnessx.models.client import DEFAULT_MODEL, ModelClient
from harnessx.models.preflight import preflight_all

PRESETS = {"search": "cf-search", "none": "cf-nosearch"}
SPLITS = ("search", "heldout", "all")


@dataclass
class CFEvalConfig:
    harness: Harness | None = None        # None: the paper's preset per condition
    conditions: tuple[str, ...] = CONDITIONS
    model: str = DEFAULT_MODEL
    api_base: str | None = None
    reasoning_effort: str | None = None  # task agent: low/medium/high or a thinking budget
    split: str = "all"
    epochs: int = 1
    items: str | None = None
    corpus: str | None = None
    judge_model: str | None = None
    resamples: int = 3000
    concurrency: int = 8
    out: str = "runs/cf-eval"
    seed: int = 0
    suite_options: dict = field(default_factory=dict)


def harness_for(harness: Harness | None, condition: str) -> Harness:
    return load_preset(PRESETS[condition]) if harness is None else harness


async def run_eval(cfg: CFEvalConfig, progress: ProgressFn | None = None) -> dict:
    if cfg.split not in SPLITS:
        raise InputError("--split", f"unknown split {cfg.split!r}", one_of(SPLITS))
    for condition in cfg.conditions:
        if condition not in CONDITIONS:
            raise InputError("--condition", f"unknown condition {condition!r}", one_of(CONDITIONS))
    out = Path(cfg.out)
    model = ModelClient(cfg.model, api_base=cfg.api_base, reasoning_effort=cfg.reasoning_effort)
    judge_client = ModelClient(cfg.judge_model, temperature=0.0) if cfg.judge_model else None
    # a task model or judge that cannot answer stops here, before anything is written
    await preflight_all([model] + ([judge_client] if judge_client else []))
    judge = LLMAlignmentJudge(client=judge_client, cache_dir=out / "judge") if judge_client else DEFAULT_JUDGE
    seeds = [cfg.seed * 1000 + e for e in range(cfg.epochs)]
    data: dict = {"model": model.describe(), "simulated": model.simulated, "split": cfg.split, "seeds": seeds,
                  "judge": judge.name, "harnesses": {}, "conditions": {}}
    evaluations = []
    for condition in cfg.conditions:
        suite = CFSuite(condition=condition, items=cfg.items, corpus=cfg.corpus, **cfg.suite_options)
        tasks = suite.tasks(None if cfg.split == "all" else cfg.split)
        if not tasks:
            raise InputError("--split", f"no {cfg.split!r} items")
        harness = harness_for(cfg.harness, condition)
        runner = Runner(suite, model, RolloutCache(out / "rollouts"), concurrency=cfg.concurrency)
        evaluation = await evaluate(runner, harness, tasks, seeds, judge, progress)
        evaluations.append(evaluation)
        metrics = CF().metrics(list(evaluation.scores), tasks, n_resamples=cfg.resamples)
        data["conditions"][condition] = metrics
        data["harnesses"][condition] = {"name": harness.name, "hash": harness.hash}
        data["n_items"], data["n_read"] = len(tasks), len(suite.tasks())
        data["engine"] = getattr(suite.engine, "name", "") if condition == "search" else data.get("engine", "")
    require_evaluated("cf eval", evaluations)
    names = {h["name"] for h in data["harnesses"].values()}
    data["harness_label"] = " / ".join(sorted(names))
    write_atomic(Path(out) / "cf-eval.json", json.dumps(data, indent=2))
    return data
