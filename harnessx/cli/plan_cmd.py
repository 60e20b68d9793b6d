"""`harnessx plan`: what a search budget buys and the smallest gain each round can detect."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.common import AcceptOptionOpt, ApiBaseOpt, EnvOpt, TasksDirOpt, Tau2DirOpt, console, friendly_errors, open_suite
from harnessx.cli.numbers import NON_NEGATIVE, PROBABILITY_OPEN, in_range
from harnessx.errors import InputError
from harnessx.models.defaults import DEFAULT_MODEL
from harnessx.search.names import DEFAULT_RULE, RULE_REGISTRY


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
    objective: str = typer.Option("joint", "--objective", callback=checks.objective, help="Objective (its strata decide the paired tasks)."),
    tasks: int = typer.Option(None, "--tasks", min=1, help="Paired tasks (default: the suite's search split)."),
    rounds: int = typer.Option(None, "--rounds", min=0, max=checks.ROUNDS_MAX, show_default=False,
                              help="Rounds after R0 (default: as many as the budget buys, else 8)."),
    proposals: int = typer.Option(3, "--proposals", min=1, max=checks.PROPOSALS_MAX),
    epochs: int = typer.Option(1, "--epochs", min=1, max=checks.EPOCHS_MAX, help="Seeds per task."),
    accept: str = typer.Option(DEFAULT_RULE, "--accept", help="default (= explore), greedy or paired."),
    accept_option: list[str] = AcceptOptionOpt,
    alpha: float = typer.Option(0.05, "--alpha", callback=PROBABILITY_OPEN),
    power: float = typer.Option(0.8, "--power", callback=PROBABILITY_OPEN),
    effect: float = typer.Option(None, "--effect", callback=in_range(0, 1, lo_open=True),
                                help="The gain to detect, absolute (0.05 = +5 pp)."),
    discordance: float = typer.Option(None, "--discordance", callback=in_range(0, 1, lo_open=True),
                                      help="Share of (task, seed) pairs whose outcomes "
                                      "differ (p10 + p01). Default: estimated from R0's rollouts (--from-run, "
                                      "--pilot, or the rollout cache), else 0.5 (assumed, and said so)."),
    max_rollouts: int = typer.Option(None, "--max-rollouts", min=1),
    max_cost: float = typer.Option(None, "--max-cost", callback=NON_NEGATIVE, help="Dollar budget (needs a per-rollout cost)."),
    cost_per_rollout: float = typer.Option(None, "--cost-per-rollout", callback=NON_NEGATIVE,
                                            help="USD per rollout."),
    from_run: Path = typer.Option(None, "--from-run", callback=checks.existing("dir"), help="A run directory: per-rollout cost from its R0 estimate, "
                                  "discordance from R0's rollouts."),
    pilot: bool = typer.Option(False, "--pilot", help="Run R0 over 2 seeds on the search split to estimate the "
                               "discordance (cached: a search of the same runs dir reuses them)."),
    model: str = typer.Option(DEFAULT_MODEL, "--model", help="Task-agent model for --pilot and the cache lookup."),
    api_base: str = ApiBaseOpt,
    space: str = typer.Option("default", "--space", callback=checks.space, help="Search space whose R0 the pilot runs."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", callback=checks.writable_dir, help="Whose shared rollout cache to read and fill."),
    seed: int = typer.Option(0, "--seed", help="The search's seed (its rollout seeds)."),
    certify_split: str = typer.Option("heldout", "--certify-split", callback=checks.certify_split, help="The claim's split (none = not run)."),
    certify_epochs: int = typer.Option(None, "--certify-epochs", min=1, max=checks.EPOCHS_MAX, help="Seeds per task of the claim "
                                       "(default: --epochs)."),
    tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt,
) -> None:
    """Rounds x proposals x seeds a budget buys, the minimum detectable effect per round and of the final claim."""
    from harnessx.envs.registry import suite_class

    suite_class(env)  # the plug-in names before the planner's libraries load
    RULE_REGISTRY.check(accept)
    from harnessx.models.client import ModelClient
    from harnessx.search import get_objective, load_space
    from harnessx.search.certify import CertifyConfig
    from harnessx.search.discordance import Discordance, DiscordanceSource, estimate_discordance
    from harnessx.search.planner import PlanConfig, plan as make_plan
    from harnessx.search.rules import make_acceptance, parse_options, takes_alpha

    accept_options = parse_options(accept_option)
    make_acceptance(accept, accept_options, **({"alpha": alpha} if takes_alpha(accept) else {}))  # one line if wrong

    goal = get_objective(objective)
    suite = open_suite(env, tau2_dir=tau2_dir, tasks_dir=tasks_dir)
    search_tasks = goal.tasks(suite.tasks("search"))
    tasks = tasks or len(search_tasks)
    if from_run is not None and cost_per_rollout is None:
        cost_per_rollout = cost_from_run(from_run)
    certify = CertifyConfig.from_options(certify_split, certify_epochs)
    claim_tasks, why = certify.tasks(suite, goal)
    found = Discordance(discordance, "given (--discordance)") if discordance is not None else estimate_discordance(
        DiscordanceSource(suite, ModelClient(model, api_base=api_base), load_space(space).initial(), search_tasks, goal,
                          seed, epochs, str(runs_dir)), from_run, pilot)
    config = PlanConfig(tasks=tasks, rounds=rounds, proposals=proposals, epochs=epochs, alpha=alpha, power=power,
                        accept=accept, accept_options=accept_options, discordance=found.value, discordance_source=found.source, effect=effect,
                        max_rollouts=max_rollouts, max_cost=max_cost, cost_per_rollout=cost_per_rollout,
                        claim_tasks=None if why else len(claim_tasks), claim_epochs=certify_epochs,
                        claim_split=certify.split or "none")
    result = make_plan(config)
    console.print(f"[bold]harnessx plan[/] env={env} objective={objective}")
    for line in result.lines():
        console.print(line, style="yellow" if line.startswith("WARNING") else None, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("plan")(friendly_errors(plan))
