"""`harnessx`: search, evaluate, compare, export and probe agent harnesses."""

from __future__ import annotations

import sys

import typer

from harnessx.benchmarks.registry import cli_groups
from harnessx.cli.boundary import BoundaryGroup
from harnessx.cli.common import console
from harnessx.cli.lazy import lazy_group
from harnessx.errors import InputError

# Each command lives in its own module, imported only when that command runs (or shows its own help):
# the root help lists them from here. The help is the first paragraph of the command's own help
# (tests/test_cli_startup.py checks they agree); the order is the order `--help` lists them in.
COMMANDS = {
    "search": ("harnessx.cli.search_cmd",
               "Search harnesses: R0, then rounds of proposals judged on the search split, as many as the budget buys."),
    "eval": ("harnessx.cli.eval_cmd", "Evaluate one harness on one split of an environment."),
    "compare": ("harnessx.cli.compare_cmd",
                "Compare harnesses on a split no one selected on, with confidence intervals."),
    "diff": ("harnessx.cli.diff_cmd",
             "Tasks the second candidate flipped against the first (default: R0 -> selected), search or held-out."),
    "export": ("harnessx.cli.export_cmd",
               "Export the selected harness of a search (provenance: search, round, scores, model, claim)."),
    "report": ("harnessx.cli.report_cmd", "Write Markdown, PNG and HTML reports for a run."),
    "view": ("harnessx.cli.view_cmd",
             "Browse searches (candidate tree, lineage), candidates (per-task gates) and trajectories."),
    "worker": ("harnessx.cli.worker_cmd", "Join a running search (--executor queue) and run rollouts from its queue."),
    "plan": ("harnessx.cli.plan_cmd",
             "Rounds x proposals x seeds a budget buys, the minimum detectable effect per round and of the final claim."),
    "gc": ("harnessx.cli.gc_cmd", "Remove rollouts in the runs folder's cache that no run, compare or eval folder uses."),
    "presets": None,  # defined below
    "probe": ("harnessx.cli.probe_cmd", "Belief (calibration) and challenge (stability) probes."),
    "tasks": ("harnessx.cli.tasks_cmd", "List, show and build task suites."),
    "local": ("harnessx.cli.local_cmd", "Serve the local model (llama.cpp) on loopback."),
}
# Then each benchmark's own command group, from the benchmark registry (each benchmark names its module
# and its one-line help; the registry imports no command module).
if clash := sorted(set(cli_groups()) & set(COMMANDS)):
    raise TypeError(f"benchmark command groups {clash} would hide harnessx commands of the same name")
COMMANDS.update(cli_groups())


class HarnessXGroup(BoundaryGroup, lazy_group(COMMANDS)):
    """The root group: commands imported when they run (`lazy`), each run inside the error boundary."""


app = typer.Typer(cls=HarnessXGroup, no_args_is_help=True, add_completion=False, help=__doc__,
                  context_settings={"help_option_names": ["-h", "--help"]})


@app.callback()
def _before_every_command(verbose: bool = typer.Option(False, "--verbose", "-v", help="Let MLflow, alembic, Optuna, "
                                                       "LiteLLM and httpx log INFO lines to stderr (also: "
                                                       "HARNESSX_LOG=info); by default only their warnings.")) -> None:
    from harnessx.logs import configure_logs

    for stream in (sys.stdout, sys.stderr):  # a strict-ASCII terminal (LC_ALL=C, PYTHONIOENCODING=ascii)
        if hasattr(stream, "reconfigure"):  # shows '?' for the CLI's own '—' instead of failing on it
            stream.reconfigure(errors="replace")

    try:  # before a command imports the libraries that log
        configure_logs(verbose)
    except InputError as exc:
        typer.echo(f"error: {exc}", err=True)  # one line, however long
        raise typer.Exit(2) from None
    # A malformed HARNESSX_FAILPOINT (fault tests) stops here, before a command writes anything: found
    # at its first site instead, it left a half-made run directory that refused the retry.
    from harnessx import failpoints

    try:
        failpoints.armed()
    except InputError as exc:
        console.print(f"error: {exc}", markup=False, highlight=False)
        raise typer.Exit(2) from None


@app.command("presets")
def presets() -> None:
    """List the built-in harness presets."""
    from harnessx.harness import load_preset, preset_names

    for name in preset_names():
        h = load_preset(name)
        console.print(f"{name:18} {h.hash}  abandon={h.switches.abandon_mode} topology={h.switches.topology}")


if __name__ == "__main__":
    app()
