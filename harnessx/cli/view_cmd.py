"""`harnessx view`: serve the local web viewer over a runs folder on 127.0.0.1 (opens nothing)."""

from __future__ import annotations

import ipaddress
import signal
import sys
from pathlib import Path

import typer

from harnessx.cli.common import friendly_errors
from harnessx.cli.numbers import PORT
from harnessx.errors import InputError


@friendly_errors
def view_cmd(runs: str = typer.Argument("runs", help="The runs folder (searches, evals, compares)."),
             port: int = typer.Option(8765, "--port", **PORT, help="Port on the loopback address (0 = any free port)."),
             host: str = typer.Option("127.0.0.1", "--host", help="A loopback address (the viewer is local only).")) -> None:
    """Browse searches (candidate tree, lineage), candidates (per-task gates) and trajectories."""
    from werkzeug.serving import make_server

    from harnessx.viewer import create_app

    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise InputError("--host", f"{host!r} is not a loopback address", "127.0.0.1, ::1 or another 127.x address")
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
