"""The CLI starts without importing what its commands need: `import harnessx.cli.main`, `harnessx
--help` and `harnessx presets` leave LiteLLM, MLflow, Optuna, DSPy, GEPA, pandas, matplotlib and Ray
unimported; a command's module is imported when it runs, and the root help still lists every command
with its own help text. (The CPU figures are bench/cli_startup.py's, not asserted here.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from harnessx.cli.lazy import lazy_group

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("litellm", "mlflow", "optuna", "dspy", "gepa", "pandas", "matplotlib", "ray")
# a command's own --help: none of these either (the help is built from light modules)
HELP_HEAVY = (*HEAVY, "numpy", "scipy")
HELP_COMMANDS = (["search"], ["eval"], ["compare"], ["export"], ["report"], ["worker"], ["plan"], ["probe", "belief"],
                 ["probe", "challenge"], ["kapro", "eval"], ["cf", "eval"], ["feasigen", "eval"], ["tasks", "list"])

HELP_PROBE = """
import json, sys
from typer.testing import CliRunner
import harnessx.cli.main as main
result = CliRunner().invoke(main.app, [*ARGS, "--help"])
assert result.exit_code == 0, result.output
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)))
"""

PROBE = """
import json, sys
from typer.testing import CliRunner
import harnessx.cli.main as main
seen = {"import": sorted(m for m in HEAVY if m in sys.modules)}
for args in (["--help"], ["presets"]):
    result = CliRunner().invoke(main.app, args)
    assert result.exit_code == 0, result.output
    seen[" ".join(args)] = sorted(m for m in HEAVY if m in sys.modules)
print(json.dumps(seen))
"""


def test_the_cli_and_its_help_import_no_heavy_library():
    out = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{PROBE}"], check=False, cwd=REPO,
                         capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.splitlines()[-1]) == {"import": [], "--help": [], "presets": []}


def test_the_root_help_lists_each_command_with_its_own_help(monkeypatch):
    from harnessx.cli.main import app

    listed = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    group = typer.main.get_command(app)
    monkeypatch.setattr(type(group), "stubs", False)  # list the imported commands themselves
    loaded = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert listed.exit_code == loaded.exit_code == 0
    assert listed.output == loaded.output
    for name in ("search", "tasks", "presets", "feasigen"):
        assert f" {name} " in listed.output


def test_a_lazy_command_runs_when_called_and_a_missing_module_says_it_has_not_landed():
    app = typer.Typer(cls=lazy_group({"tasks": ("harnessx.cli.tasks_cmd", "List, show and build task suites."),
                                      "ghost": ("harnessx.cli.ghost_cmd", "Haunts the CLI.")}),
                      no_args_is_help=True, add_completion=False)

    @app.callback()
    def root() -> None:
        """A lazy root."""

    @app.command("hello")
    def hello() -> None:
        """Says hello."""
        print("hello")

    runner = CliRunner()
    listed = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert "Haunts the CLI. (not landed yet)" in listed.output and "Says hello." in listed.output
    assert listed.output.index(" tasks ") < listed.output.index(" ghost ") < listed.output.index(" hello ")
    ran = runner.invoke(app, ["tasks", "list", "--env", "toy"])
    assert ran.exit_code == 0 and "toy-0" in ran.output, ran.output
    ghost = runner.invoke(app, ["ghost", "--anything"])
    assert ghost.exit_code != 0 and "`harnessx ghost` has not landed yet" in ghost.output
    typo = runner.invoke(app, ["taks"])
    assert typo.exit_code == 2 and "Did you mean 'tasks'?" in typo.output


@pytest.mark.parametrize("args", HELP_COMMANDS, ids=" ".join)
def test_a_commands_own_help_imports_no_heavy_library(args):
    out = subprocess.run([sys.executable, "-c", f"HEAVY = {HELP_HEAVY!r}\nARGS = {args!r}\n{HELP_PROBE}"], check=False,
                         cwd=REPO, capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.splitlines()[-1]) == []


def test_the_names_search_help_lists_are_the_registries():
    from harnessx.search import PROPOSERS, SearchConfig
    from harnessx.search.names import DEFAULT_PROPOSER, DEFAULT_RULE, PROPOSER_NAMES, RULE_NAMES
    from harnessx.search.proposers import make_proposer
    from harnessx.search.rules import ACCEPTANCE

    assert tuple(PROPOSER_NAMES) == tuple(PROPOSERS)
    assert tuple(RULE_NAMES) == tuple(ACCEPTANCE)
    assert (SearchConfig().run.proposer, SearchConfig().run.accept) == (DEFAULT_PROPOSER, DEFAULT_RULE)
    assert make_proposer(DEFAULT_PROPOSER).name == DEFAULT_PROPOSER

