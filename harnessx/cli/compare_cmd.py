"""`harnessx compare` and the shared body of `harnessx eval`: scorecards per split with CIs,
paired differences, transfer; rich tables on screen, JSON + Markdown + HTML + PNGs under --out."""

from __future__ import annotations

import asyncio

import typer

from harnessx.agent.sampling import SamplingDefaults, copies_warning
from harnessx.comparison.runs import Contender, resolve_contenders
from harnessx.cli.common import (DEFAULT_ENV, ENVIRONMENTS, ApiBaseOpt, BfclDirOpt, DataOpt, ReasoningEffortOpt, SandboxOpt, TasksDirOpt, Tau2DirOpt, UserModelOpt, UserModeOpt, console,
                                 friendly_errors, open_suite, with_data)
from harnessx.cli import checks
from harnessx.cli.numbers import in_range

EnvOpt = typer.Option(None, "--env", help=f"Environment: {ENVIRONMENTS} (default: the runs' env, else {DEFAULT_ENV}).")
ModelOpt = typer.Option(None, "--model", help="Task-agent model (default: the runs' model, else sim/baseline).")
SplitOpt = typer.Option(None, "--split", callback=checks.paired_split, help="search, heldout or independent; repeat for several (default: "
                        "heldout, or every split the suite has when it has no heldout tasks, e.g. toy).")
EpochsOpt = typer.Option(1, "--epochs", min=1, max=checks.EPOCHS_MAX, help="Rollouts per task (epoch seeds seed*1000+e: 0..N-1 at --seed 0).")
TemperatureOpt = typer.Option(None, "--temperature", min=0.0, max=2.0, callback=in_range(0, 2), help="Task-agent sampling temperature "
                              "(default: the runs', else 0; a harness's own `temperature` switch wins). At 0 a "
                              "deterministic model repeats itself: epochs are copies.")
TopPOpt = typer.Option(None, "--top-p", min=0.0, max=1.0, callback=in_range(0, 1), help="Task-agent nucleus sampling (default: the runs', "
                       "else unset; a harness's `top_p` wins).")
SeedOpt = typer.Option(None, "--seed", min=0, help="Rollout seeds seed*1000+e for epoch e (default 0).")
OutOpt = typer.Option(None, "--out", callback=checks.writable_dir, help="Output dir (default: <run>/compare for one run, else runs/compare-<id>).")
SourcesOpt = typer.Option(0, "--sources", min=0, help="Only the first N source pairs of each split (0 = all).")
ResamplesOpt = typer.Option(10_000, "--resamples", min=100, help="Bootstrap resamples for paired CIs.")
ConcurrencyOpt = typer.Option(8, "--concurrency", min=1, help="Rollouts in flight.")
JudgeOpt = typer.Option(None, "--judge-model", help="LLM rubric judge for M0/M3 (default: deterministic judge).")


def read_line(env: str, read: int, tasks: dict[str, list], sources: int) -> str:
    """What an evaluation read, used and skipped, in tasks."""
    used = sum(len(t) for t in tasks.values())
    why = "other splits" + (f", beyond --sources {sources}" if sources else "")
    return (f"read {read} tasks of {env}; using {used} ({', '.join(f'{len(t)} {s}' for s, t in tasks.items())}); "
            f"skipped {read - used} ({why})")


def run_and_show(contenders: list[Contender], kind: str, *, env: str | None, model: str | None, api_base: str | None,
                 splits: list[str], epochs: int, out: str | None, sources: int, resamples: int, concurrency: int,
                 judge_model: str | None, suite_options: dict | None = None,
                 sampling: dict | None = None) -> dict:
    from harnessx.comparison import setup  # the runner, LiteLLM and the scoring load when a command runs
    from harnessx.comparison.compare import compare
    from harnessx.comparison.compare_trials import write_trials
    from harnessx.report.sections import write_result
    from harnessx.report.tables import compare_tables, model_line

    env, model, api_base = setup.settings(contenders, env, model, api_base)
    sampled: SamplingDefaults = setup.sampling(contenders, **(sampling or {}))
    given = dict(suite_options or {})
    options = setup.suite_options(contenders, with_data(env, given, given.pop("data", None)), env)
    suite = open_suite(env, **options)
    splits = list(splits or setup.default_splits(suite))
    key = setup.evaluation_key(contenders, kind, env=env, suite_options=options, model=model, api_base=api_base,
                               splits=list(splits), epochs=epochs, sources=sources, judge_model=judge_model,
                               **sampled.key())
    out_dir = setup.out_dir(contenders, kind, out, setup.key_digest(key))
    judge = setup.make_judge(judge_model, out_dir)  # pre-flighted, before the runner writes anything
    runner = setup.make_runner(suite, model, api_base, contenders, out_dir, concurrency, sampled)
    tasks = setup.split_tasks(suite, splits, sources)
    seeds = sampled.epoch_seeds(epochs)
    console.print(model_line(runner.model.describe(), runner.model.simulated), highlight=False)
    console.print(read_line(env, len(suite.tasks()), tasks, sources), highlight=False, soft_wrap=True)
    if warning := copies_warning(epochs, sampled.temperature, [c.harness.switches.temperature for c in contenders],
                                 runner.model.simulated):
        console.print(f"[yellow]{warning}[/]")
    total = len(contenders) * len(seeds) * sum(len(t) for t in tasks.values())
    trials: list[dict] = []
    with setup.progress_bar(total, kind, console) as progress:
        data = asyncio.run(compare(runner, contenders, tasks, seeds, judge,
                                   n_resamples=resamples, progress=progress, command=kind, trials=trials))
    runner.cache.close()  # done with the shared cache: a `harnessx gc` may run
    for table in compare_tables(data):
        console.print(table.rich())
    data["evaluation_key"] = key
    stem = f"{kind}-{'+'.join(splits)}-{setup.key_digest(key)}"  # one file per distinct evaluation
    files = write_result(kind, data, out_dir, stem, f"HarnessX {kind}: {', '.join(c.label for c in contenders)}")
    write_trials(out_dir, stem, contenders, trials, runner.cache.root)  # what `harnessx diff` and the viewer read
    from harnessx.report.mlflow_log import log_compare

    try:
        logged = log_compare(out_dir, stem, files, data)  # inside a tracked search run: a nested run of it
    except Exception as exc:  # MLflow's own errors (store gone, run deleted): the files stand, said once
        console.print(f"[yellow]not logged to MLflow: {str(exc).splitlines()[0][:200]}[/]")
    else:
        if logged is not None:
            console.print(f"logged to MLflow as run {logged}, nested under the search's run", highlight=False)
    from harnessx.report.optuna_log import note_compare

    if (attr := note_compare(out_dir, [c.label for c in contenders], data)) is not None:
        console.print(f"noted in the search's Optuna study as user attr {attr}", highlight=False)
    console.print(f"wrote {files['json']}, {files['markdown']}, {files['html']} "
                  f"({runner.model_calls} model calls, {runner.cache_hits} cached rollouts)", highlight=False)
    return data


@friendly_errors
def compare_cmd(harnesses: list[str] = typer.Argument(..., callback=checks.harness_spec, help="Run directories, harness files or preset names."),
                r0: bool = typer.Option(True, "--r0/--no-r0", help="A run directory also brings its R0 (listed first)."),
                env: str = EnvOpt, model: str = ModelOpt, api_base: str = ApiBaseOpt, split: list[str] = SplitOpt,
                epochs: int = EpochsOpt, out: str = OutOpt, sources: int = SourcesOpt, resamples: int = ResamplesOpt,
                concurrency: int = ConcurrencyOpt, judge_model: str = JudgeOpt, tau2_dir: str = Tau2DirOpt,
                tasks_dir: str = TasksDirOpt, sandbox: str = SandboxOpt, user_mode: str = UserModeOpt,
                user_model: str = UserModelOpt, bfcl_dir: str = BfclDirOpt, temperature: float = TemperatureOpt,
                top_p: float = TopPOpt, seed: int = SeedOpt, reasoning_effort: str = ReasoningEffortOpt,
                data: list[str] = DataOpt) -> None:
    """Compare harnesses on a split no one selected on, with confidence intervals.

    Strict/relaxed SA with the ladder's gates, solve, false abstention, joint, joint clean, pairs
    right both ways and per family (k/n, Wilson 95% CI); paired
    differences vs the first (bootstrap over source pairs); transfer from the search split. A run directory stands for its selected harness and, by default, its R0 (listed first, so
    differences read "selected − R0").
    """
    run_and_show(resolve_contenders(harnesses, r0), "compare", env=env, model=model, api_base=api_base, splits=split,
                 epochs=epochs, out=out, sources=sources, resamples=resamples, concurrency=concurrency,
                 judge_model=judge_model, suite_options=dict(tau2_dir=tau2_dir, tasks_dir=tasks_dir, sandbox=sandbox,
                                                             user_mode=user_mode, user_model=user_model,
                                                             bfcl_dir=bfcl_dir, data=data),
                 sampling=dict(temperature=temperature, top_p=top_p, seed=seed, reasoning_effort=reasoning_effort))


def register(app: typer.Typer) -> None:
    app.command("compare")(compare_cmd)
