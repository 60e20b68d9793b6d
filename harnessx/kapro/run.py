"""`kapro eval` end to end: evaluate one harness on a KAPRO split through the one pipeline
(runner → replay env → benchmark scorer), optionally re-judge pass with the paper's LLM judge,
optionally repeat with distractor tools and report quadrant deltas (noise − base, pp)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from harnessx.agent.runner import ProgressFn, RolloutCache, Runner
from harnessx.errors import InputError
from harnessx.benchmarks.evaluate import Evaluation, evaluate, require_evaluated
from harnessx.harness.model import Harness
from harnessx.kapro.benchmark import trials_of
from harnessx.kapro.items import item_of
from harnessx.kapro.judge import llm_pass
from harnessx.kapro.metrics import QUADRANTS, SUBSPACES, kapro_metrics
from harnessx.kapro.suite import KaproSuite
from harnessx.models.client import ModelClient
from harnessx.models.preflight import preflight_all
from harnessx.scoring.task_score import TaskScore


@dataclass(frozen=True)
class KaproRunConfig:
    harness: Harness
    model: str = "sim/baseline"
    api_base: str | None = None
    reasoning_effort: str | None = None  # task agent: low/medium/high or a thinking budget
    split: str = "heldout"
    epochs: int = 1
    kaware_dir: str | None = None
    distractors: int = 0
    judge_model: str | None = None
    n_resamples: int = 2000
    concurrency: int = 8
    out: Path = field(default_factory=lambda: Path("runs/kapro-eval"))


async def _rejudge(scores: list[TaskScore], ev: Evaluation, runner: Runner, judge: ModelClient) -> list[TaskScore]:
    """Replace each valid trial's `pass` by the paper's LLM judge verdict (None → trial invalid)."""
    by_id = {t.id: t for t in ev.tasks}
    out = []
    for score, result in zip(scores, ev.results):
        if not score.valid:
            out.append(score)
            continue
        item, traj = item_of(by_id[score.task_id]), runner.trajectory(result)
        calls = [f"{e.data['name']}({json.dumps(e.data.get('arguments', {}))})" for e in traj.of_kind("tool_call")]
        finals = [e.data.get("content") or "" for e in traj.of_kind("message")
                  if e.author == "agent" and e.data.get("role") == "agent"]
        verdict, why = await llm_pass(judge, "?".join(s.subquestion for s in item.steps) or item.task,
                                      "; ".join(calls) or "(no tool calls)", finals[-1] if finals else "", item.answer)
        if verdict is None:
            out.append(score.model_copy(update={"valid": False, "exclusion": "judge_failure", "judge_rationale": why}))
            continue
        values = {**score.values, "pass": float(verdict), "kas_pass": (score.values["kas_task"] + float(verdict)) / 2}
        if "kas_avg" in values:
            values["kas_avg_pass"] = (values["kas_avg"] + float(verdict)) / 2
        out.append(score.model_copy(update={"values": values, "solved": verdict, "judge": f"llm:{judge.model}",
                                            "judge_rationale": why}))
    return out


async def _one(cfg: KaproRunConfig, distractors: int, runner_cache: Path,
               progress: ProgressFn | None = None) -> tuple[dict, dict]:
    suite = KaproSuite(kaware_dir=cfg.kaware_dir, distractors=distractors)
    tasks = suite.tasks(cfg.split)
    if not tasks:
        have = {sp: sum(t.split == sp for t in suite.tasks()) for sp in ("search", "heldout")}
        raise InputError("--split", f"the KAPRO suite ({suite.source}) has no {cfg.split!r} tasks "
                                    f"({have['search']} search, {have['heldout']} heldout)",
                         "a split that has tasks (a subspace with one item puts it in search)")
    runner = Runner(suite, ModelClient(cfg.model, api_base=cfg.api_base, reasoning_effort=cfg.reasoning_effort), RolloutCache(runner_cache),
                    concurrency=cfg.concurrency)
    ev = await evaluate(runner, cfg.harness, tasks, list(range(cfg.epochs)), progress=progress)
    require_evaluated("kapro eval", [ev])
    scores = list(ev.scores)
    if cfg.judge_model:
        scores = await _rejudge(scores, ev, runner, ModelClient(cfg.judge_model))
    metrics = kapro_metrics(trials_of(scores, tasks), cfg.n_resamples)
    info = {"n_tasks": len(tasks), "source": suite.source, "distractors": distractors,
            "unread": suite.problems, "n_items": len(suite.items),
            "model_calls": runner.model_calls, "cache_hits": runner.cache_hits,
            "simulated": runner.model.simulated, "model": runner.model.describe()}
    return metrics, info


def quadrant_deltas(base: dict, noisy: dict) -> dict:
    """Δ = P_noise − P_base (percentage points) per subspace and quadrant (digest §2.3, Fig. 5)."""
    out = {}
    for sub in SUBSPACES:
        if sub in base["per_subspace"] and sub in noisy["per_subspace"]:
            b, n = base["per_subspace"][sub], noisy["per_subspace"][sub]
            out[sub] = {q: None if b[q]["value"] is None or n[q]["value"] is None
                        else 100 * (n[q]["value"] - b[q]["value"]) for q in QUADRANTS}
            out[sub]["n_base"], out[sub]["n_noise"] = b["n_valid"], n["n_valid"]
    return out


MAX_ROUNDS = 10  # the paper's acting cap (digest §2.3, [repo])


def run_kapro_eval(cfg: KaproRunConfig, progress: ProgressFn | None = None) -> dict:
    """The acting run is capped at 10 rounds: a harness with a larger step limit runs with 10.
    `progress` is called after each rollout (the CLI's progress display)."""
    given = cfg.harness
    if given.switches.max_steps > MAX_ROUNDS:
        cfg = replace(cfg, harness=given.with_switches(max_steps=MAX_ROUNDS))
    # a task model or judge that cannot answer stops here, before anything is written
    asyncio.run(preflight_all([ModelClient(cfg.model, api_base=cfg.api_base, reasoning_effort=cfg.reasoning_effort)]
                              + ([ModelClient(cfg.judge_model)] if cfg.judge_model else [])))
    cache = cfg.out / "rollouts"
    metrics, info = asyncio.run(_one(cfg, 0, cache, progress))
    data = {"kind": "kapro-eval", "harness": {"name": cfg.harness.name, "hash": cfg.harness.hash,
                                              "given_hash": given.hash, "max_rounds": cfg.harness.switches.max_steps},
            "split": cfg.split, "epochs": cfg.epochs, "judge": f"llm:{cfg.judge_model}" if cfg.judge_model
            else "deterministic answer match", **info, "metrics": metrics}
    if cfg.distractors:
        noisy, noisy_info = asyncio.run(_one(cfg, cfg.distractors, cache, progress))
        data["distractor_run"] = {**noisy_info, "metrics": noisy}
        data["distractor_deltas"] = quadrant_deltas(metrics, noisy)
    return data
