"""`harnessx view`: serve the local web viewer over a runs folder on 127.0.0.1 (opens nothing)."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.common import friendly_errors
from harnessx.cli.numbers import PORT
from harnessx.errors import InputError


@friendly_errors
def view_cmd(runs: str = typer.Argument("runs", callback=checks.existing("dir"), help="The runs folder (searches, evals, compares)."),
             port: int = typer.Option(8765, "--port", **PORT, help="Port on the loopback address (0 = any free port)."),
             host: str = typer.Option("127.0.0.1", "--host", callback=checks.loopback_host, help="A loopback address or localhost (the viewer is local only).")) -> None:
    """Browse searches (candidate tree, lineage), candidates (per-task gates) and trajectories."""
    from werkzeug.serving import make_server

    from harnessx.viewer import create_app

    if not Path(runs).is_dir():
        raise InputError(runs, "no such runs folder", "a folder with run directories (e.g. runs/)")
    server = make_server(host, port, create_app(runs), threaded=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"HarnessX viewer at http://{host}:{server.server_port}/ for {runs} (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def register(app: typer.Typer) -> None:
    app.command("view")(view_cmd)
