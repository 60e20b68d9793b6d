"""`harnessx search`: R0 then rounds of proposals on the search split, tracked and resumable."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from harnessx.cli.aliases import aliased
from harnessx.cli.common import (AcceptOptionOpt, ApiBaseOpt, BfclDirOpt, DataOpt, EnvOpt, ReasoningEffortOpt, SandboxOpt, TasksDirOpt,
                                 Tau2DirOpt, TemperatureOpt, TopPOpt, UserModelOpt, UserModeOpt, console, friendly_errors,
                                 suite_kwargs)
from harnessx.cli import checks
from harnessx.cli.numbers import NON_NEGATIVE, PROBABILITY_OPEN, in_range
from harnessx.cli.scale_opts import (ExecutorOpt, LocalRolloutsOpt, RayActorsOpt, RayAddressOpt, WorkersAliasOpt,
                                     check_executor, pool_size)
from harnessx.errors import InputError
from harnessx.models.defaults import DEFAULT_MODEL
from harnessx.search.config import DEFAULT_TRACES, BudgetConfig, ExecutionConfig, RunConfig, SearchConfig, TrackingConfig
from harnessx.search.names import (DEFAULT_PROPOSER, DEFAULT_RULE, NEEDS_META_MODEL, PROPOSER_NAMES, PROPOSER_REGISTRY,
                                   RULE_NAMES, RULE_REGISTRY)
from harnessx.search.reporter import Reporter
from harnessx.search.uris import DEFAULT_MLFLOW_URI

if TYPE_CHECKING:
    from harnessx.agent.result import RolloutResult
    from harnessx.formatting.progress import RunProgress

TABLE_ROWS = {"strict_sa": "strict SA (blocked)", "solve": "solve (feasible)",
              "false_abstention": "false abstention (feasible)", "joint": "joint (pooled)",
              "joint_clean": "joint, clean (no false abstention)", "pairs": "pairs right both ways"}


class ProgressReporter(Reporter):
    """The search's progress display: rounds, planned rollouts, ETA, cost, and a line per accepted move."""

    def __init__(self, progress: RunProgress):
        self.progress = progress
        self.planned: int | None = None  # the pre-flight's figure: the bar's total, whatever the loop re-plans

    def plan(self, total: int, done: int) -> None:
        self.progress.plan(total if self.planned is None else max(self.planned, done), done)

    def claim(self, total: int, done: int) -> None:
        # the claim is its own phase (paid outside --max-rollouts): the bar's total becomes the search's
        # rollouts plus the claim's, never a figure the count runs past
        self.planned = None
        self.progress.plan(done + total, done)

    def rollout(self, result: RolloutResult, cost_usd: float) -> None:
        self.progress.advance(cost_usd)

    def round_started(self, round_no: int) -> None:
        self.progress.round(round_no)

    def accepted(self, row: dict, before: dict) -> None:
        from harnessx.formatting.cells import move_line

        self.progress.line(move_line(row, before), style="green")

    def note(self, text: str) -> None:
        self.progress.line(text, style="yellow")

    def stayed(self, round_no: int, rows: list[dict]) -> None:
        self.progress.line(stayed_line(round_no, rows))


def stayed_line(round_no: int, rows: list[dict]) -> str:
    """One line for a round that did not move: how many proposals, and the rule's reason for the first."""
    reasons = list(dict.fromkeys(str(r.get("reason") or "no reason recorded") for r in rows))
    return (f"round {round_no}: no move ({len(rows)} proposal{'s' if len(rows) != 1 else ''} judged; "
            f"{reasons[0]}{f'; +{len(reasons) - 1} other reason(s)' if len(reasons) > 1 else ''})")


def search(
    objective: str = typer.Option("joint", "--objective", callback=checks.objective, help="What to maximise: joint (pooled strict SA + solve), "
                                  "sa (strict SA on blocked search tasks) or another objective a benchmark declares "
                                  "(kas, nas, ...; an unknown name is refused with the full list)."),
    env: str = EnvOpt,
    model: str = typer.Option(DEFAULT_MODEL, "--model", help="Task-agent model (LiteLLM string); default: the "
                              "offline simulated agent, whose numbers are never a model's result."),
    api_base: str = ApiBaseOpt,
    proposer: str = typer.Option(DEFAULT_PROPOSER, "--proposer", help=f"Who proposes edits: {', '.join(PROPOSER_NAMES)}, "
                                  "or an import path package.module:Class (a Proposer)."),
    meta_model: str = typer.Option(None, "--meta-model", help="LiteLLM model for the llm/gepa proposers."),
    meta_api_base: str = typer.Option(None, "--meta-api-base", help="OpenAI-compatible server of the meta-model "
                                      "(default: --api-base), e.g. harnessx local serve's URL."),
    accept: str = typer.Option(DEFAULT_RULE, "--accept", help="Acceptance rule: default (= explore: screens every "
                               "proposal on a few blocked-feasible pairs, promotes the leaders with futility stops and "
                               "moves on modest evidence; the claim at the end certifies), paired (paired test + Holm + racing) "
                               f"or greedy (the paper's: best proposal if its objective is higher). Registered: {', '.join(RULE_NAMES)}; "
                               "or an import path package.module:Class (an AcceptanceRule)."),
    accept_option: list[str] = AcceptOptionOpt,
    rounds: int = typer.Option(None, "--rounds", min=0, max=checks.ROUNDS_MAX, show_default=False,
                              help="Rounds after R0 (default: as many as --max-rollouts / --max-cost pay for, "
                              "else 8)."),
    proposals: int = typer.Option(3, "--proposals", min=1, max=checks.PROPOSALS_MAX, help="Proposals per round."),
    epochs: int = typer.Option(1, "--epochs", min=1, max=checks.EPOCHS_MAX, help="Rollouts per task (seeds), the same for every candidate."),
    seed: int = typer.Option(0, "--seed", min=0, help="Search seed: rollout seeds, task order, samplers."),
    space: str = typer.Option("default", "--space", callback=checks.space, help="Search space: a name in search_spaces/ or a YAML path."),
    alpha: float = typer.Option(0.05, "--alpha", callback=PROBABILITY_OPEN, help="Significance level of the paired rule."),
    name: str = typer.Option(None, "--name", callback=checks.run_name, help="Run name (default <objective>-<env>)."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", callback=checks.writable_dir, help="Where run directories go."),
    resume: bool = typer.Option(False, "--resume", help="Continue the run directory; finished rollouts are reused."),
    storage: str = typer.Option(None, "--storage", callback=checks.storage, help="Optuna storage URL (e.g. postgresql://...); default: "
                                "a journal file runs/<name>/optuna.log."),
    tracking_uri: str = typer.Option(DEFAULT_MLFLOW_URI, "--tracking-uri", callback=checks.tracking_uri, show_default=False,
                                     help="MLflow tracking URI (a database store or a tracking server); default: "
                                     "the SQLite database mlruns/mlflow.db."),
    no_mlflow: bool = typer.Option(False, "--no-mlflow", help="Do not log to MLflow."),
    mlflow_traces: int = typer.Option(DEFAULT_TRACES, "--mlflow-traces", min=-1, help="Rollouts per candidate logged as "
                                      "MLflow traces, failed ones first (-1 = all, 0 = none)."),
    max_rollouts: int = typer.Option(None, "--max-rollouts", min=1, help="Rollout budget of the whole search: a hard cap, and "
                                 "without --rounds what sets how many rounds run."),
    max_cost: float = typer.Option(None, "--max-cost", callback=NON_NEGATIVE, help="Task-agent cost budget in USD: a hard cap, and "
                              "without --rounds what sets how many rounds run."),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Rollouts in flight at once."),
    tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt, sandbox: str = SandboxOpt,
    user_mode: str = UserModeOpt, user_model: str = UserModelOpt,
    bfcl_dir: str = BfclDirOpt, data: list[str] = DataOpt,
    executor: str = ExecutorOpt, ray_address: str = RayAddressOpt, ray_actors: int = RayActorsOpt,
    local_rollouts: int = LocalRolloutsOpt, workers: int = WorkersAliasOpt,
    sources: int = typer.Option(0, "--sources", min=0, help="Only the first N source pairs of the search split (0 = all)."),
    tasks: list[str] = typer.Option(None, "--tasks", help="Only these task or source ids (repeatable)."),
    temperature: float = TemperatureOpt, top_p: float = TopPOpt, reasoning_effort: str = ReasoningEffortOpt,
    certify_split: str = typer.Option("heldout", "--certify-split", callback=checks.certify_split, help="Split the final claim (selected vs R0, "
                                      "paired, one-sided test at --alpha) is tested on; none = not run. Its "
                                      "rollouts are paid after the search, outside --max-rollouts."),
    certify_epochs: int = typer.Option(None, "--certify-epochs", min=1, max=checks.EPOCHS_MAX, help="Seeds per task for the claim "
                                       "(default: --epochs)."),
    effect: float = typer.Option(None, "--effect", callback=in_range(0, 1, lo_open=True), help="Pre-flight: warn when the rounds cannot detect, or the "
                                 "claim cannot certify, an improvement this large (absolute, 0.05 = +5 pp)."),
) -> None:
    """Search harnesses: R0, then rounds of proposals judged on the search split, as many as the budget buys.

    With --max-rollouts or --max-cost and no --rounds, rounds run while the budget left pays for one
    (so the budget sets how many candidates are looked at; its last rollouts buy a round of fewer
    proposals); --rounds caps them; with neither, 8 rounds.

    Writes runs/<name>/ (config, checkpoint, harnesses, ledger, rollouts, optuna.log, selected.yaml,
    summary.json) and MLflow runs under mlruns/. Held-out and independent splits are never used.
    """
    check_run_folder(runs_dir / (name or f"{objective}-{env}"), name, resume, rounds)
    # the plug-in names before the search's libraries load: a typo costs no import (a registered name
    # is not imported here; an import path is, being the user's own code)
    from harnessx.envs.registry import suite_class

    suite_class(env)
    RULE_REGISTRY.check(accept)
    PROPOSER_REGISTRY.check(proposer)
    if proposer in NEEDS_META_MODEL and not meta_model:
        raise InputError(f"--proposer {proposer}", "needs a meta-model", "--meta-model <LiteLLM model string>")
    from harnessx.agent.sampling import copies_warning
    from harnessx.formatting.progress import ProgressConfig, RunProgress
    from harnessx.search import Search
    from harnessx.search.breaker import ModelOutage
    from harnessx.search.budget import search_plan
    from harnessx.search.certify import CertifyConfig
    from harnessx.models.preflight import preflight
    from harnessx.search.planner import rollout_line
    from harnessx.search.rules import parse_options, rule_class
    from harnessx.cli.compare_cmd import read_line

    rule_class(accept)  # an import path of the wrong kind: one line, before anything runs
    accept_options = parse_options(accept_option)
    check_executor(executor, ray_address, storage)
    workers = pool_size(executor, ray_actors, local_rollouts, workers)
    config = SearchConfig(
        run=RunConfig(objective=objective, env=env, model=model, api_base=api_base, proposer=proposer,
                      meta_model=meta_model, meta_api_base=meta_api_base or api_base, accept=accept, alpha=alpha,
                      accept_options=accept_options, epochs=epochs, seed=seed, space=space, name=name, sources=sources, task_ids=list(tasks or []),
                      temperature=temperature, top_p=top_p, reasoning_effort=reasoning_effort,
                      suite_options=suite_kwargs(env, tau2_dir=tau2_dir, tasks_dir=tasks_dir, sandbox=sandbox,
                                                 user_mode=user_mode, user_model=user_model, bfcl_dir=bfcl_dir,
                                                  data=data)),
        budget=BudgetConfig(rounds=rounds, proposals=proposals, max_rollouts=max_rollouts, max_cost=max_cost),
        execution=ExecutionConfig(executor=executor, concurrency=concurrency, workers=workers, ray_address=ray_address),
        tracking=TrackingConfig(runs_dir=str(runs_dir), storage=storage, tracking_uri=None if no_mlflow else tracking_uri,
                                mlflow_traces=mlflow_traces))
    progress = RunProgress(ProgressConfig("search"), console)
    reporter = ProgressReporter(progress)
    runner = Search(config, reporter=reporter,
                    certify=CertifyConfig.from_options(certify_split, certify_epochs))
    sim = runner.model.simulated
    rule = runner.acceptance.name  # the rule that runs; `default` names one of them (an alias): say both
    console.print(f"[bold]harnessx search[/] {config.run_name}: objective={objective} env={env} "
                  f"model={runner.model.describe()} proposer={runner.proposer.name} "
                  f"accept={accept if accept in (rule, None) else f'{accept} ({rule})'}"
                  + "".join(f" {k}={v}" for k, v in accept_options.items()))
    claim_tasks, _ = runner.certify.tasks(runner.suite, runner.objective)
    used = {"search": runner.tasks, **({runner.certify.split or "claim": claim_tasks} if claim_tasks else {})}
    console.print(read_line(env, len(runner.suite.tasks()), used, sources), highlight=False, soft_wrap=True)
    if sim:
        console.print("[yellow]Simulated task agent: numbers test the pipeline; they are not a model's result.[/]")
    elif warning := copies_warning(epochs, temperature or 0.0, [], simulated=False):
        console.print(warning, style="yellow", markup=False, highlight=False)
    asyncio.run(preflight(runner.model))  # a model that cannot answer stops before the plan is printed
    power_plan = search_plan(runner, effect)  # the same figures as `harnessx plan` (one function computes both)
    reporter.planned = power_plan.rollouts  # the bar counts toward the figure the pre-flight prints
    console.print(f"pre-flight: {rollout_line(power_plan)}" + (" (cost $0: simulated)" if sim else "; tokens and "
                  "cost are estimated after R0 and capped by --max-rollouts / --max-cost"), markup=False)
    for line in power_plan.lines()[1:]:
        console.print(line if line.startswith("WARNING") else f"pre-flight: {line}",
                      style="yellow" if line.startswith("WARNING") else None, markup=False)
    try:
        with progress:
            result = asyncio.run(runner.run(resume=resume))
    except KeyboardInterrupt:  # in-flight rollouts were cancelled; finished ones are cached
        if runner.tracker is not None:
            runner.tracker.kill()
        console.print(f"[yellow]interrupted.[/] Finished rollouts are kept; continue with:\n  {resume_command()}",
                      highlight=False)
        raise typer.Exit(130) from None
    except ModelOutage as exc:
        if runner.tracker is not None:
            runner.tracker.kill()
        raise ModelOutage(f"{exc}. Stopped; fix the model, then continue with: {resume_command()}") from None
    print_summary({**result.summary, "planned_rollouts": power_plan.rollouts}, result.run_dir)
    if (result.summary.get("stop_reason") or "").startswith("model:"):
        console.print(f"[yellow]stopped on model failures; continue with:[/] {resume_command()}", highlight=False)


def check_run_folder(run: Path, name: str | None, resume: bool, rounds: int | None) -> None:
    """The run folder a search writes: new unless --resume, then one a search made, with fewer finished
    rounds than --rounds asks for. Checked before the search's libraries load (the search checks again)."""
    option = "--name" if name else "--name (default <objective>-<env>)"
    if not resume:
        if run.exists():
            raise InputError(option, f"{run} already exists", "--resume to continue it, or another --name")
        return
    if not (run / "config.json").is_file():
        raise InputError("--resume", f"{run}: nothing to resume (no config.json)",
                         "the --name and --runs-dir of an existing search run")
    try:
        done = json.loads((run / "checkpoint.json").read_text(encoding="utf-8")).get("round", -1)
    except (OSError, ValueError, AttributeError):
        return  # no checkpoint yet, or one the search itself refuses with its recovery line
    if rounds is not None and isinstance(done, int) and done > rounds:
        raise InputError("--rounds", f"{rounds}, but {run} has finished round {done} already",
                         f"--rounds {done} or more (the rounds to finish, R0 not counted)")


def resume_command() -> str:
    """The exact command line that was run, with --resume."""
    args = [a for a in sys.argv[1:] if a != "--resume"]
    return shlex.join(["harnessx", *args, "--resume"])


def print_summary(summary: dict, run_dir: Path) -> None:
    from harnessx.formatting.table import Table
    from harnessx.report.cells import objective_cell
    from harnessx.search.certify import claim_line
    from harnessx.search.objectives import get_objective

    r0, chosen = summary["r0"]["scorecard"], summary["selected"]["scorecard"]
    title = (f"{summary['search']}: R0 vs selected (round {summary['selected']['round']}), search split (selection "
             f"data, not a claim), {summary['model']}" + (" (simulated)" if summary["simulated"] else ""))
    rows = [[label, _cell(r0.get(key)), _cell(chosen.get(key))] for key, label in summary_rows(r0).items()]
    rows += [[label, key(r0), key(chosen)] for key, label in benchmark_rows(r0, chosen)]  # a benchmark's own rows
    value_key = get_objective(summary["objective"]).value_key  # another benchmark objective's own mean
    if value_key and value_key in r0.get("values", {}) and not benchmark_rows(r0, chosen):
        rows.append([f"{summary['objective']} (objective, mean)", _mean_cell(r0["values"][value_key]),
                     _mean_cell(chosen.get("values", {}).get(value_key))])
    console.print(Table(title, ["metric", "R0", "selected"], rows, justify=["left", "right", "right"]).rich())
    curve = ", ".join(f"R{e['round']}{'*' if e['accepted'] and e['round'] else ''}={objective_cell(e['objective'])}"
                      for e in summary["curve"] if e["objective"]["value"] is not None)
    console.print(f"incumbent {summary['objective']} by round (* = accepted): {curve}")
    claim = summary.get("claim") or {}
    console.print(f"rollouts used: {summary['rollouts']}"
                  + (f" of up to {summary['planned_rollouts']} planned" if summary.get("planned_rollouts") else "")
                  + (f" + {claim['rollouts']} for the claim ({claim.get('paid', 0)} paid, the rest from the cache; "
                     f"${claim.get('cost_usd', 0.0):.4f})" if claim.get("rollouts") else "")
                  + f", cost ${summary['cost_usd']:.4f}, wall {summary['wall_s']}s"
                  + (f"; stopped: {summary['stop_reason']}" if summary.get("stop_reason") else ""))
    console.print(claim_line(claim or None), style="bold green" if claim.get("certified") else "bold", markup=False,
                  highlight=False)
    console.print(f"run: {run_dir}  (export: harnessx export {run_dir} --out harness.yaml); {disk_line(run_dir)}",
                  highlight=False)
    console.print(f"[dim]{summary['note']}[/]")


def disk_line(run_dir: Path) -> str:
    """The run directory's disk use, and how much of it is shared with the runs folder's rollout cache
    (hard links: one copy of each rollout on disk)."""
    total = shared = 0
    for path in Path(run_dir).rglob("*"):
        if path.is_file():
            stat = path.stat()
            total += stat.st_size
            shared += stat.st_size if stat.st_nlink > 1 else 0
    return f"disk {total / 1e6:.1f} MB, of which {shared / 1e6:.1f} MB are rollouts shared with the rollout cache"


def benchmark_rows(*cards: dict) -> list:
    """Extra summary rows a benchmark adds for its own values (its own metrics beside the rates)."""
    from harnessx.benchmarks.registry import all_benchmarks

    return [row for bench in all_benchmarks() for row in bench.summary_extra_rows(*cards)]


def summary_rows(card: dict) -> dict[str, str]:
    """The R0-vs-selected rate rows: ASA's, or those a benchmark without blocked tasks names for what
    they are (a pass rate, an accuracy), without an empty or repeated strict-SA or joint row."""
    from harnessx.benchmarks.registry import all_benchmarks

    for bench in all_benchmarks():
        if (rows := bench.summary_rows(card)) is not None:
            return rows
    return TABLE_ROWS


def _mean_cell(value: dict | None) -> str:
    """A benchmark objective's mean: value, 95% CI, n and exclusions."""
    from harnessx.report.cells import value_cell

    return value_cell(value, signed=True)


def _cell(rate: dict | None) -> str:
    """k/n, %, Wilson 95% CI and exclusions, as in every other table."""
    from harnessx.report.cells import rate_cell

    return rate_cell(rate)


def register(app: typer.Typer) -> None:
    app.command("search", cls=aliased("search"))(friendly_errors(search))

