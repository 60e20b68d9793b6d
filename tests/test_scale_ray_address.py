"""--ray-address that nothing answers at is one clear error before the search creates anything (Ray
itself waits about a minute per attempt, after the run directory exists)."""

from __future__ import annotations

import socket

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.cli.scale_opts import check_ray_address_reachable
from harnessx.errors import InputError


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


@pytest.mark.requires("ray")  # without it the refusal names the missing extra (tests/faults)
def test_a_dead_address_stops_the_search_before_a_run_directory_exists(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    address = f"127.0.0.1:{closed_port()}"
    result = CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "0", "--executor", "ray",
                                      "--ray-address", address, "--name", "r", "--no-mlflow"])
    assert result.exit_code == 2 and "--ray-address" in result.output and "nothing answers" in result.output
    assert not (tmp_path / "runs").exists()


def test_a_listening_address_passes_and_bad_forms_are_named():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        check_ray_address_reachable(f"127.0.0.1:{port}")
        check_ray_address_reachable(f"ray://127.0.0.1:{port}")
    check_ray_address_reachable("auto")  # left to Ray: the cluster this node belongs to
    for bad in ("127.0.0.1", "host:port", ":80"):
        with pytest.raises(InputError, match="not host:port"):
            check_ray_address_reachable(bad)
