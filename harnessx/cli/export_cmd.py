"""`harnessx export`: write a search run's selected harness, with provenance, to a file."""

from __future__ import annotations

from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.aliases import aliased
from harnessx.cli.common import console, friendly_errors
from harnessx.errors import InputError, one_of
from harnessx.search.uris import DEFAULT_MLFLOW_URI

FORMATS = ("harnessx", "openai")


def export(
    run_dir: Path = typer.Argument(..., callback=checks.existing("dir"), help="A search run directory, e.g. runs/joint-retail."),
    out: Path = typer.Option(None, "--out", callback=checks.writable_file, help="Where to write it (default harness.yaml; with --format openai, "
                             "harness.openai.json). harnessx format: YAML, or JSON for a .json path."),
    fmt: str = typer.Option("harnessx", "--format", help="harnessx (HarnessX's own harness file) or openai (the "
                            "rendered system prompt, tools as OpenAI function schemas with the deferral tool, "
                            "planner/executor prompts, switches, provenance and claim; see docs/export.md)."),
    tools: Path = typer.Option(None, "--tools", help="openai: your agent's tools, a JSON list of OpenAI tools (or a "
                               "chat request body with `tools`), rendered into the prompt and listed before the "
                               "deferral tool; default: the harness's own tools only."),
    env_tools: bool = typer.Option(False, "--env-tools", help="openai: render for the tools the run's environment "
                                   "offers (on its first feasible search task) instead of --tools."),
    mlflow_register: str = typer.Option(None, "--mlflow-register", callback=checks.registry_name, help="Also register it in the MLflow model "
                                        "registry under this name, with alias `champion`."),
    tracking_uri: str = typer.Option(DEFAULT_MLFLOW_URI, "--tracking-uri", callback=checks.tracking_uri, help="MLflow tracking/registry URI."),
) -> None:
    """Export the selected harness of a search (provenance: search, round, scores, model, claim).

    Load it anywhere with `harnessx eval --harness <out>` or `Harness.load(<out>)`; with --format openai,
    any agent stack reads the JSON (docs/export.md).
    """
    from harnessx.report.cells import objective_cell
    from harnessx.search.certify import claim_line
    from harnessx.search.export import (environment_tools, export as do_export, export_openai, read_tools, register,
                                        selected_harness)
    from harnessx.search.uris import check_tracking_uri

    if fmt not in FORMATS:
        raise InputError("--format", f"unknown format {fmt!r}", one_of(FORMATS))
    for flag, given in (("--tools", tools is not None), ("--env-tools", env_tools)):
        if given and fmt != "openai":
            raise InputError(flag, "applies to --format openai only")
    if tools is not None and env_tools:
        raise InputError("--env-tools", "given with --tools", "one source of tools")
    if mlflow_register:  # its store must work before the harness file is written
        check_tracking_uri(tracking_uri)
    if fmt == "openai":
        out = out or Path("harness.openai.json")
        listed = read_tools(tools) if tools is not None else None
        if env_tools:
            listed = environment_tools(run_dir, selected_harness(run_dir))
        harness, _ = export_openai(run_dir, out, listed)
    else:
        out = out or Path("harness.yaml")
        harness = do_export(run_dir, out)
    p = harness.provenance
    console.print(f"wrote {out}: harness {harness.hash} from search {p.get('search')} round {p.get('round')}, "
                  f"{p.get('objective')} = {objective_cell(p.get('objective_value'))} on the search split "
                  f"(selection data, not a claim), model {p.get('model')}" + (" (simulated)" if p.get("simulated") else ""))
    console.print(claim_line(p.get("claim")), markup=False, highlight=False)  # the file carries it: provenance.claim
    if mlflow_register:
        version = register(harness, mlflow_register, tracking_uri)
        console.print(f"registered models:/{mlflow_register}/{version} with alias champion "
                      f"(models:/{mlflow_register}@champion)")


def register(app: typer.Typer) -> None:
    app.command("export", cls=aliased("export"))(friendly_errors(export))
