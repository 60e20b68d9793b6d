"""`harnessx export`: write a search run's selected harness, with provenance, to a file."""

from __future__ import annotations

from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.aliases import aliased
from harnessx.cli.common import console, friendly_errors
from harnessx.search.uris import DEFAULT_MLFLOW_URI


def export(
    run_dir: Path = typer.Argument(..., callback=checks.existing("dir"), help="A search run directory, e.g. runs/joint-retail."),
    out: Path = typer.Option(Path("harness.yaml"), "--out", callback=checks.writable_file, help="Where to write the harness (YAML, or .json)."),
    mlflow_register: str = typer.Option(None, "--mlflow-register", callback=checks.registry_name, help="Also register it in the MLflow model "
                                        "registry under this name, with alias `champion`."),
    tracking_uri: str = typer.Option(DEFAULT_MLFLOW_URI, "--tracking-uri", help="MLflow tracking/registry URI."),
) -> None:
    """Export the selected harness of a search (provenance: search, round, scores, model, claim).

    Load it anywhere with `harnessx eval --harness <out>` or `Harness.load(<out>)`.
    """
    from harnessx.report.cells import objective_cell
    from harnessx.search.certify import claim_line
    from harnessx.search.export import export as do_export, register
    from harnessx.search.uris import check_tracking_uri

    if mlflow_register:  # its store must work before the harness file is written
        check_tracking_uri(tracking_uri)
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
