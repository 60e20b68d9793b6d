"""End to end on the example MCP server (a real stdio server, offline, the simulated agent): the
search certifies its claim on the held-out split, `compare --split heldout` reads the same rollouts,
and the export carries the certified claim. The same commands as docs/tutorial-your-agent.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.harness import Harness
from tests.conftest import require

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mcp-inventory"


@pytest.mark.slow
def test_the_example_server_search_certifies_compares_and_exports(tmp_path, monkeypatch):
    require("mcp")
    monkeypatch.setenv("HARNESSX_MCP_CACHE", str(tmp_path / "checks.json"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    search = runner.invoke(app, ["search", "--env", "mcp", "--tasks-dir", str(EXAMPLE), "--rounds", "4",
                                 "--proposals", "3", "--certify-epochs", "3", "--no-mlflow", "--name", "mcp-demo",
                                 "--runs-dir", "runs"])
    assert search.exit_code == 0, search.output
    run = tmp_path / "runs" / "mcp-demo"
    claim = json.loads((run / "claim.json").read_text())
    assert claim["certified"] and claim["split"] == "heldout" and claim["excluded_pairs"] == 0, claim
    assert claim["valid_tasks"] == claim["n_tasks"] >= 24 and claim["valid_n"] == 3 * claim["n_tasks"]
    assert claim["difference"] > 0
    assert "claim: CERTIFIED on the heldout split" in search.output

    compare = runner.invoke(app, ["compare", str(run), "--split", "heldout"])
    assert compare.exit_code == 0, compare.output
    calls = re.search(r"\((\d+) model calls, (\d+) cached\s+rollouts\)", compare.output)
    assert calls and int(calls.group(1)) == 0 and int(calls.group(2)) > 0, compare.output  # the claim's rollouts

    export = runner.invoke(app, ["export", str(run), "--out", str(tmp_path / "harness.yaml")])
    assert export.exit_code == 0, export.output
    harness = Harness.load(tmp_path / "harness.yaml")
    assert harness.provenance["claim"]["certified"] is True and harness.hash == claim["selected_hash"]
