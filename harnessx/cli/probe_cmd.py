"""`harnessx probe belief|challenge`: know (calibration) and hold (stability under a challenge)."""

from __future__ import annotations

import asyncio

import typer

from harnessx.cli import checks
from harnessx.cli.common import (DataOpt, ReasoningEffortOpt, SandboxOpt, TasksDirOpt, Tau2DirOpt, console, friendly_errors,
                                 open_suite, with_data)
from harnessx.agent.sampling import SamplingDefaults
from harnessx.cli.compare_cmd import (ApiBaseOpt, ConcurrencyOpt, EnvOpt, JudgeOpt, ModelOpt, SeedOpt, SourcesOpt,
                                      TemperatureOpt, TopPOpt)
from harnessx.comparison.runs import Contender, resolve_contenders
from harnessx.errors import InputError

probe_app = typer.Typer(no_args_is_help=True, help="Belief (calibration) and challenge (stability) probes.")
HarnessesArg = typer.Argument(None, callback=checks.harness_spec, help="Run directories, harness files or preset names.")
HarnessOpt = typer.Option([], "--harness", callback=checks.harness_spec, help="Same as the positional arguments (repeatable).")
SplitOpt = typer.Option(None, "--split", callback=checks.paired_split, help="search, heldout or independent (default: heldout, or the suite's "
                        "own split when it has no heldout tasks, e.g. toy or a --tasks-dir without splits).")


def _contenders(harnesses: list[str] | None, extra: list[str], r0: bool) -> list[Contender]:
    specs = [*(harnesses or []), *extra]
    if not specs:
        raise InputError("harnesses", "no harness given", "a run directory, harness file or preset name")
    return resolve_contenders(specs, r0)


def _prepare(contenders: list[Contender], kind: str, env, model, api_base, out, concurrency, split, sources,
             suite_options: dict, sampling: SamplingDefaults):
    from harnessx.comparison import setup
    from harnessx.report.tables import model_line

    env, model, api_base = setup.settings(contenders, env, model, api_base)
    out_dir = setup.out_dir(contenders, kind, out)
    given = dict(suite_options)
    suite = open_suite(env, **setup.suite_options(contenders, with_data(env, given, given.pop("data", None))))
    runner = setup.make_runner(suite, model, api_base, contenders, out_dir, concurrency, sampling=sampling)
    console.print(model_line(runner.model.describe(), runner.model.simulated), highlight=False)
    split = split or setup.default_splits(suite)[0]
    return env, out_dir, runner, split, setup.split_tasks(suite, [split], sources)[split]


def _stem(kind: str, split: str, sampling: SamplingDefaults) -> str:
    """The output file's name: sampling off the defaults is part of it, so probes never overwrite each other."""
    key = sampling.key()
    return f"{kind}-{split}" + "".join(f"-{name}{value:g}" if isinstance(value, float | int) else f"-{name}{value}"
                                       for name, value in key.items())


@probe_app.command("belief")
@friendly_errors
def belief_cmd(harnesses: list[str] = HarnessesArg, harness: list[str] = HarnessOpt,
               r0: bool = typer.Option(True, "--r0/--no-r0", help="A run directory also brings its R0."),
               env: str = EnvOpt, model: str = ModelOpt, api_base: str = ApiBaseOpt, split: str = SplitOpt,
               epochs: int = typer.Option(1, "--epochs", min=1, max=checks.EPOCHS_MAX, help="Reports per task (seeds seed*1000+e; 0..N-1 at --seed 0)."),
               out: str = typer.Option(None, "--out", callback=checks.writable_dir, help="Output dir (default: probes/belief in the run folder)."),
               sources: int = SourcesOpt, resamples: int = typer.Option(10_000, "--resamples", min=100),
               concurrency: int = ConcurrencyOpt, tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt,
               sandbox: str = SandboxOpt, temperature: float = TemperatureOpt, top_p: float = TopPOpt,
               seed: int = SeedOpt, reasoning_effort: str = ReasoningEffortOpt, data: list[str] = DataOpt) -> None:
    """Read-only P(feasible) report per task: AUROC (n_A), Brier and ECE10 (n_C), paired differences."""
    from harnessx.comparison import setup
    from harnessx.probes.run import belief_probe
    from harnessx.report.sections import write_result
    from harnessx.report.tables import belief_tables

    contenders = _contenders(harnesses, harness, r0)
    sampling = setup.sampling(contenders, temperature, top_p, seed, reasoning_effort)
    _, out_dir, runner, split, tasks = _prepare(contenders, "probes/belief", env, model, api_base, out, concurrency,
                                                split, sources, dict(tau2_dir=tau2_dir, tasks_dir=tasks_dir, sandbox=sandbox, data=data),
                                                sampling)
    data = asyncio.run(belief_probe(runner, contenders, tasks, split, sampling.epoch_seeds(epochs), resamples))
    runner.cache.close()  # done with the shared cache: a `harnessx gc` may run
    for table in belief_tables(data):
        console.print(table.rich())
    files = write_result("belief", data, out_dir, _stem("belief", split, sampling), "HarnessX belief probe")
    console.print(f"wrote {files['json']}, {files['markdown']}, {files['html']}", highlight=False)


@probe_app.command("challenge")
@friendly_errors
def challenge_cmd(harnesses: list[str] = HarnessesArg, harness: list[str] = HarnessOpt,
                  r0: bool = typer.Option(True, "--r0/--no-r0", help="A run directory also brings its R0."),
                  env: str = EnvOpt, model: str = ModelOpt, api_base: str = ApiBaseOpt, split: str = SplitOpt,
                  replicates: int = typer.Option(6, "--replicates", min=1, help="Runs (seeds seed*1000+e; 0..N-1 at --seed 0)."),
                  pre: str = typer.Option(None, "--pre", help="Pre-challenge predicate: abstention, strict_sa, relaxed_sa "
                                          "(default: abstention on terminal, else strict_sa)."),
                  post: str = typer.Option(None, "--post", help="Post-challenge predicate (default: strict_sa)."),
                  out: str = typer.Option(None, "--out", callback=checks.writable_dir, help="Output dir (default: probes/challenge in the run folder)."),
                  sources: int = SourcesOpt, concurrency: int = ConcurrencyOpt, judge_model: str = JudgeOpt,
                  tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt, sandbox: str = SandboxOpt,
                  temperature: float = TemperatureOpt, top_p: float = TopPOpt, seed: int = SeedOpt,
                  reasoning_effort: str = ReasoningEffortOpt, data: list[str] = DataOpt) -> None:
    """One neutral reconsideration request after each run: P(+|+), P(+|−), P(−|+), CRA or Δχ."""
    from harnessx.comparison import setup
    from harnessx.probes.challenge import predicates_for
    from harnessx.probes.run import challenge_probe
    from harnessx.report.sections import write_result
    from harnessx.report.tables import challenge_tables

    contenders = _contenders(harnesses, harness, r0)
    sampling = setup.sampling(contenders, temperature, top_p, seed, reasoning_effort)
    env, out_dir, runner, split, tasks = _prepare(contenders, "probes/challenge", env, model, api_base, out,
                                                  concurrency, split, sources, dict(tau2_dir=tau2_dir, tasks_dir=tasks_dir, sandbox=sandbox, data=data),
                                                  sampling)
    try:
        pre, post = predicates_for(env, pre, post)
    except ValueError as exc:
        raise InputError("--pre/--post", str(exc)) from None
    with setup.progress_bar(len(contenders) * replicates * len(tasks), "challenge", console) as progress:
        data = asyncio.run(challenge_probe(runner, contenders, tasks, split, replicates, pre, post,
                                           setup.make_judge(judge_model, out_dir), progress,
                                           seeds=sampling.epoch_seeds(replicates)))
    runner.cache.close()  # done with the shared cache: a `harnessx gc` may run
    for table in challenge_tables(data):
        console.print(table.rich())
    files = write_result("challenge", data, out_dir, _stem("challenge", split, sampling), "HarnessX challenge probe")
    console.print(f"wrote {files['json']}, {files['markdown']}, {files['html']}", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(probe_app, name="probe")
