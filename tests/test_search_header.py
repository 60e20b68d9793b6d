"""The search's first line names the acceptance rule the user gave: `--accept default` is an alias, and
the line says which rule it stands for instead of printing that rule's name alone (`accept=explore`)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.search.rules import ACCEPTANCE, rule_class


@pytest.mark.parametrize("accept", list(ACCEPTANCE))
def test_the_header_names_the_rule_given_and_what_an_alias_stands_for(accept, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["search", "--env", "toy", "--rounds", "0", "--no-mlflow", "--name", "h",
                                      "--accept", accept])
    assert result.exit_code == 0, result.output
    rule = rule_class(accept)().name
    shown = accept if accept == rule else f"{accept} ({rule})"
    assert f"accept={shown}" in " ".join(result.output.split())
