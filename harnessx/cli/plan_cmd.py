"""`harnessx plan`: what a search budget buys and the smallest gain each round can detect."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from harnessx.cli.common import EnvOpt, TasksDirOpt, Tau2DirOpt, console, friendly_errors, open_suite
from harnessx.cli.numbers import NON_NEGATIVE, PROBABILITY_OPEN, in_range
from harnessx.errors import InputError
from harnessx.search import get_objective
from harnessx.search.planner import PlanConfig, plan as make_plan


def cost_from_run(run: Path) -> float:
    """USD per rollout from a run's checkpoint (R0 onwards): spent cost over distinct rollouts."""
    path = run / "checkpoint.json"
    if not path.is_file():
        raise InputError(str(path), "no checkpoint", "a search run directory (with checkpoint.json after R0)")
    try:
        spent = json.loads(path.read_text(encoding="utf-8")).get("spent") or {}
    except json.JSONDecodeError as exc:
        raise InputError(str(path), f"not JSON: {exc}") from None
    if not spent:
        raise InputError(str(path), "field 'spent' is empty", "a run that finished R0")
    return sum(spent.values()) / len(spent)


def plan(
    env: str = EnvOpt,
    objective: str = typer.Option("joint", "--objective", help="Objective (its strata decide the paired tasks)."),
    tasks: int = typer.Option(None, "--tasks", min=1, help="Paired tasks (default: the suite's search split)."),
    rounds: int = typer.Option(8, "--rounds", min=0),
    proposals: int = typer.Option(3, "--proposals", min=1),
    epochs: int = typer.Option(1, "--epochs", min=1, help="Seeds per task."),
    accept: str = typer.Option("paired", "--accept", help="greedy, paired, sequential or stack."),
    alpha: float = typer.Option(0.05, "--alpha", callback=PROBABILITY_OPEN),
    power: float = typer.Option(0.8, "--power", callback=PROBABILITY_OPEN),
    effect: float = typer.Option(None, "--effect", callback=in_range(0, 1, lo_open=True), help="The gain to detect, absolute (0.05 = +5 pp)."),
    discordance: float = typer.Option(0.5, "--discordance", callback=in_range(0, 1, lo_open=True), help="Share of (task, seed) pairs whose outcomes "
                                      "differ (p10 + p01); 0.5 = independent rollouts at p = 0.5."),
    max_rollouts: int = typer.Option(None, "--max-rollouts", min=1),
    max_cost: float = typer.Option(None, "--max-cost", callback=NON_NEGATIVE, help="Dollar budget (needs a per-rollout cost)."),
    cost_per_rollout: float = typer.Option(None, "--cost-per-rollout", callback=NON_NEGATIVE, help="USD per rollout."),
    from_run: Path = typer.Option(None, "--from-run", help="A run directory: per-rollout cost from its R0 estimate."),
    tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt,
) -> None:
    """Rounds x proposals x seeds a budget buys, and the minimum detectable effect per round."""
    if accept not in ("greedy", "paired", "sequential", "stack"):
        raise InputError("--accept", f"unknown acceptance rule {accept!r}", "greedy, paired, sequential or stack")
    if tasks is None:
        tasks = len(get_objective(objective).tasks(open_suite(env, tau2_dir=tau2_dir, tasks_dir=tasks_dir).tasks("search")))
    if from_run is not None and cost_per_rollout is None:
        cost_per_rollout = cost_from_run(from_run)
    config = PlanConfig(tasks=tasks, rounds=rounds, proposals=proposals, epochs=epochs, alpha=alpha, power=power,
                        accept=accept, discordance=discordance, effect=effect, max_rollouts=max_rollouts,
                        max_cost=max_cost, cost_per_rollout=cost_per_rollout)
    result = make_plan(config)
    console.print(f"[bold]harnessx plan[/] env={env} objective={objective}")
    for line in result.lines():
        console.print(line, style="yellow" if line.startswith("WARNING") else None, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("plan")(friendly_errors(plan))
