"""The failpoint switch itself: off unless armed, a malformed value is one clear error, and an armed
site kills its process with SIGKILL at exactly the n-th hit, after the torn write it is given."""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from harnessx import failpoints
from harnessx.errors import InputError


def test_unarmed_or_another_site_is_a_no_op(monkeypatch):
    monkeypatch.delenv(failpoints.ENV, raising=False)
    failpoints.hit("ledger.append", torn=lambda: pytest.fail("torn write without a failpoint"))
    monkeypatch.setenv(failpoints.ENV, "rollout.put:1")
    failpoints.hit("ledger.append", torn=lambda: pytest.fail("torn write at another site"))


@pytest.mark.parametrize("spec", ["ledger.append", "ledger.append:0", ":3", "ledger.append:x", "ledger.apend:1",
                                  "write::1"])
def test_a_malformed_spec_is_one_error_naming_the_variable(monkeypatch, spec):
    monkeypatch.setenv(failpoints.ENV, spec)
    with pytest.raises(InputError, match=failpoints.ENV):
        failpoints.hit("ledger.append")


def _three_hits(path: str) -> None:
    os.environ[failpoints.ENV] = "write:x.json:2"  # a site name with a colon: the last one splits
    for i in range(1, 4):
        with open(path, "a") as fh:
            fh.write(f"hit {i}\n")
        failpoints.hit("write:x.json", torn=lambda: open(path, "a").write("torn"))


def test_the_nth_hit_kills_the_process_after_the_torn_write(tmp_path):
    log = tmp_path / "log.txt"
    proc = multiprocessing.get_context("fork").Process(target=_three_hits, args=(str(log),))
    proc.start()
    proc.join()  # its exit: killed at the 2nd hit, or returns after the 3rd
    assert proc.exitcode == -signal.SIGKILL
    assert log.read_text() == "hit 1\nhit 2\ntorn"  # nothing ran after the kill


def test_a_malformed_spec_stops_the_cli_before_a_run_directory_is_made(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from harnessx.cli.main import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(failpoints.ENV, "bogus")
    result = CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "0", "--name", "fp", "--no-mlflow"])
    assert result.exit_code == 2 and failpoints.ENV in result.output
    assert not (tmp_path / "runs").exists()  # nothing half-made: a retry is not refused
    monkeypatch.setenv(failpoints.ENV, "write:checkpoint.json:3")
    assert failpoints.armed() == ("write:checkpoint.json", 3)
