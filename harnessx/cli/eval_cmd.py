"""`harnessx eval`: one harness on one or more splits of an environment (a compare of one)."""

from __future__ import annotations

import typer

from harnessx.cli import checks
from harnessx.cli.common import BfclDirOpt, DataOpt, ReasoningEffortOpt, SandboxOpt, TasksDirOpt, Tau2DirOpt, UserModelOpt, UserModeOpt, friendly_errors
from harnessx.cli.compare_cmd import (ApiBaseOpt, ConcurrencyOpt, EnvOpt, EpochsOpt, JudgeOpt, ModelOpt, ResamplesOpt,
                                      SeedOpt, SourcesOpt, SplitOpt, TemperatureOpt, TopPOpt, run_and_show)
from harnessx.comparison.runs import resolve_contenders


@friendly_errors
def eval_cmd(harness: str = typer.Option(..., "--harness", callback=checks.harness_spec, help="Harness file, preset name or run directory (its selected harness)."),
             env: str = EnvOpt, model: str = ModelOpt, api_base: str = ApiBaseOpt, split: list[str] = SplitOpt,
             epochs: int = EpochsOpt,
             out: str = typer.Option(None, "--out", callback=checks.writable_dir, help="Output dir (default: <run>/eval or runs/eval-<id>)."),
             sources: int = SourcesOpt, resamples: int = ResamplesOpt, concurrency: int = ConcurrencyOpt,
             judge_model: str = JudgeOpt, tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt,
             sandbox: str = SandboxOpt, user_mode: str = UserModeOpt, user_model: str = UserModelOpt,
             bfcl_dir: str = BfclDirOpt, temperature: float = TemperatureOpt, top_p: float = TopPOpt,
             seed: int = SeedOpt, reasoning_effort: str = ReasoningEffortOpt, data: list[str] = DataOpt) -> None:
    """Evaluate one harness on one split of an environment.

    Strict/relaxed SA with the ladder's gates (M0, M1, authorship, M2, M3), solve, false abstention,
    joint, joint clean, pairs right both ways and per family, each with n and a Wilson 95% CI;
    with `--split search` as well, its transfer to the held-out split."""
    run_and_show(resolve_contenders([harness], include_r0=False), "eval", env=env, model=model, api_base=api_base,
                 splits=split, epochs=epochs, out=out, sources=sources, resamples=resamples, concurrency=concurrency,
                 judge_model=judge_model, suite_options=dict(tau2_dir=tau2_dir, tasks_dir=tasks_dir, sandbox=sandbox,
                                                             user_mode=user_mode, user_model=user_model,
                                                             bfcl_dir=bfcl_dir, data=data),
                 sampling=dict(temperature=temperature, top_p=top_p, seed=seed, reasoning_effort=reasoning_effort))


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_cmd)
