"""`harnessx`: search, evaluate, compare, export and probe agent harnesses."""

from __future__ import annotations

import importlib

import typer

from harnessx.cli.boundary import BoundaryGroup
from harnessx.cli.common import console, friendly_errors
from harnessx.errors import NotLandedError

app = typer.Typer(cls=BoundaryGroup, no_args_is_help=True, add_completion=False, help=__doc__,
                  context_settings={"help_option_names": ["-h", "--help"]})

# Each command lives in its own module; a module that has not landed yet makes its command say so.
COMMANDS = {
    "search": ("harnessx.cli.search_cmd", "Search harnesses: R0 then rounds of proposals, tracked in Optuna and MLflow."),
    "eval": ("harnessx.cli.eval_cmd", "Evaluate one harness on one split of an environment."),
    "compare": ("harnessx.cli.compare_cmd", "Compare selected harnesses on a split, with confidence intervals."),
    "export": ("harnessx.cli.export_cmd", "Export the selected harness of a search run."),
    "probe": ("harnessx.cli.probe_cmd", "Belief (calibration) and challenge (stability) probes."),
    "tasks": ("harnessx.cli.tasks_cmd", "List, show and build task suites."),
    "report": ("harnessx.cli.report_cmd", "Write Markdown, PNG and HTML reports for a run."),
    "local": ("harnessx.cli.local_cmd", "Serve the local model (llama.cpp) on loopback."),
    "view": ("harnessx.cli.view_cmd", "Browse runs, search trees, candidates and trajectories in a local web viewer."),
    "kapro": ("harnessx.cli.kapro_cmd", "KAPRO: knowing vs acting on tool needs (eval, report)."),
    "cf": ("harnessx.cli.cf_cmd", "Confident Fools: when to search and when to answer from memory."),
    "feasigen": ("harnessx.cli.feasigen_cmd", "FeasiGen: build masked suites, verify, evaluate STOP, report."),
    "worker": ("harnessx.cli.worker_cmd", "Join a running search (--executor queue) and run rollouts from its queue."),
    "plan": ("harnessx.cli.plan_cmd", "Budget and power: what a search budget buys, the smallest detectable gain."),
}


@app.callback()
def _before_every_command() -> None:
    # A malformed HARNESSX_FAILPOINT (fault tests) stops here, before a command writes anything: found
    # at its first site instead, it left a half-made run directory that refused the retry.
    from harnessx import failpoints
    from harnessx.errors import InputError

    try:
        failpoints.armed()
    except InputError as exc:
        console.print(f"error: {exc}", markup=False, highlight=False)
        raise typer.Exit(2) from None


def _not_landed(name: str, help_text: str) -> None:
    @app.command(name, help=f"{help_text} [not landed yet]",
                 context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    @friendly_errors
    def _cmd() -> None:
        raise NotLandedError(f"`harnessx {name}` has not landed yet in this version.")


for _name, (_module, _help) in COMMANDS.items():
    try:
        _mod = importlib.import_module(_module)
    except ModuleNotFoundError as _exc:
        if _exc.name != _module:
            raise
        _not_landed(_name, _help)
        continue
    _mod.register(app)


@app.command("presets")
def presets() -> None:
    """List the built-in harness presets."""
    from harnessx.harness import load_preset, preset_names

    for name in preset_names():
        h = load_preset(name)
        console.print(f"{name:18} {h.hash}  abandon={h.switches.abandon_mode} topology={h.switches.topology}")


if __name__ == "__main__":
    app()
