"""Every option of every command, fed values it cannot mean, is refused at once: exit 2, one line
naming the option the user gave, a fraction of a second of CPU, no heavy library imported, nothing
written.

The cases are generated from the CLI itself (typer/click introspection of the root group): every text
or path option gets the empty, blank, NUL-byte and line-break values; every integer option a number
beyond any count; every float option NaN and infinities; and options whose meaning the CLI checks
(objectives, splits, run names, harness specs, hosts, registry names, output paths) get values
outside it. Each command's cases run in one fresh interpreter (CliRunner in-process), which reports
per case its exit code, output, CPU time and the heavy modules it imported; there every command's
body is replaced by an exit 99, so a case refused only after parsing (or not at all) fails here
without running anything. Checks that need several options together (the search's run folder) are
tested end to end in tests/faults/test_input_faults_cli.py.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer._click.core import Context

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("litellm", "scipy", "mlflow", "optuna", "dspy", "gepa", "pandas", "matplotlib", "ray")
CASE_CPU_S = 1.0  # one refusal, in-process (the interpreter's start is not in it)
START_CPU_S = 1.5  # a fresh interpreter that imports the CLI and refuses

BY_KIND = {"text": ["", "  ", "a\x00b", "a\nb"], "int": ["99999999999999999999999999999"],
           "float": ["nan", "inf", "-inf"]}
# Values outside what an option means, wherever an option of that name appears.
BY_MEANING = {
    "--objective": ["bogus"], "--split": ["bogus"], "--certify-split": ["bogus", "search"],
    "--name": ["..", "../x", "/abs", "a/b", ".hidden", "-x", "a b", "é" * 3],
    "--space": ["nope", "missing.yaml"], "--host": ["8.8.8.8", "example.com"],
    "--mlflow-register": ["bad name/!!", "../x"], "--harness": ["runs/no-such-run", "A9", "/proc/nope.yaml"],
    "--from-run": ["no/such/run"], "--epochs": ["1000000"], "--rounds": ["1000000"], "--proposals": ["1000000"],
    "--certify-epochs": ["1000000"], "--index": ["."], "--json": ["."],
    "--executor": ["bogus", "Queue"], "--sandbox": ["bogus", "bwrap "], "--user-mode": ["bogus"],
    "--storage": ["not a url", "nosuchdialect://x", "sqlite:/x.db", "postgresql://u@127.0.0.1:1/db"],
    "--tracking-uri": ["file:///x", "mlruns", "http://", "nosuchdialect://x", "sqlite:/x.db"],
}
# Positional arguments that name a run folder or a harness: ones that do not exist.
ARGUMENTS = {"harnesses": "runs/no-such-run", "run_dir": "no/such/run", "runs": "no/such/runs",
             "result": "no/such/result", "run": "no/such/eval", "labels": "no/such/labels.csv"}
FILE_IN_THE_WAY = ("--out", "--runs-dir")  # an output folder given as an existing file: refused
OUT_FOLDER_COMMANDS = {"compare", "eval", "report", "probe belief", "probe challenge"}


def leaf_commands() -> dict[str, object]:
    from harnessx.cli.main import app

    root = typer.main.get_command(app)
    ctx = Context(root)
    found: dict[str, object] = {}

    def walk(cmd, path):
        if hasattr(cmd, "list_commands"):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), [*path, name])
        else:
            found[" ".join(path)] = cmd

    walk(root, [])
    return found


def _kind(param) -> str | None:
    from harnessx.cli.guards import _kind as kind

    k = kind(param)
    return {str: "text", Path: "text", int: "int", float: "float"}.get(k)


def cases(command: str, cmd, a_file: str) -> list[tuple[str, list[str]]]:
    """(the name the refusal must carry, argv) for every bad value of every parameter of `command`."""
    out: list[tuple[str, list[str]]] = []
    for param in cmd.params:
        if getattr(param, "hidden", False) or getattr(param, "is_flag", False):
            continue
        if not param.opts or not param.opts[0].startswith("-"):  # a positional argument
            if param.name in ARGUMENTS:
                out.append((param.name, [*command.split(), ARGUMENTS[param.name]]))
            continue
        option = param.opts[0]
        values = list(BY_KIND.get(_kind(param), []))
        values += BY_MEANING.get(option, [])
        if option in FILE_IN_THE_WAY and (option == "--runs-dir" or command in OUT_FOLDER_COMMANDS):
            values.append(a_file)
        out += [(option, [*command.split(), option, value]) for value in values]
    return out


WORKER = r"""
import json, sys, time
import typer
from typer._click.core import Context
from typer.testing import CliRunner
import harnessx.cli.main as main
HEAVY, CASES = json.loads(sys.argv[1]), json.loads(sys.stdin.read())

def unreachable(**_):  # a case that gets past the parser is a failure: it must not run (or write) anything
    sys.exit(99)

def stub(cmd):
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(Context(cmd)):
            stub(cmd.get_command(Context(cmd), name))
    else:
        cmd.callback = unreachable

root = typer.main.get_command(main.app)  # invoked itself: typer would build a fresh, unstubbed group per call
stub(root)
typer.testing._get_command = lambda app: root
runner = CliRunner()
report = []
for name, argv in CASES:
    before = set(sys.modules)
    t = time.process_time()
    result = runner.invoke(main.app, argv, env={"COLUMNS": "300"})
    report.append({"name": name, "argv": argv, "exit": result.exit_code, "output": result.output,
                   "cpu": time.process_time() - t, "exception": repr(result.exception),
                   "heavy": sorted(m for m in set(sys.modules) - before if m.split(".")[0] in HEAVY)})
print(json.dumps(report))
"""


def run_cases(case_list, cwd: Path) -> tuple[list[dict], float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", WORKER, json.dumps(HEAVY)], input=json.dumps(case_list), cwd=cwd,
                         capture_output=True, text=True, check=False, timeout=900,
                         env={**os.environ, "PYTHONPATH": str(REPO), "HARNESSX_LOG": "warning"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert out.returncode == 0, out.stderr[-3000:]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(out.stdout.splitlines()[-1]), cpu


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


COMMANDS = leaf_commands()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_bad_value_of_every_option_is_one_fast_line_naming_it(command, tmp_path):
    (tmp_path / "a-file").write_text("not a folder\n")
    case_list = cases(command, COMMANDS[command], "a-file")
    if not case_list:
        pytest.skip(f"{command} takes no value")
    before = tree(tmp_path)
    report, cpu = run_cases(case_list, tmp_path)
    assert cpu < START_CPU_S + CASE_CPU_S * len(case_list), f"{command}: {cpu:.2f} s of CPU for {len(case_list)} cases"
    for case in report:
        what = f"{case['argv']!r}"
        lines = case["output"].strip().splitlines()
        assert case["exit"] == 2, f"{what}: exit {case['exit']}: {case['output'][-800:]} {case['exception']}"
        assert len(lines) == 1 and lines[0].startswith("error: "), f"{what}: {case['output'][-800:]}"
        assert case["name"] in lines[0], f"{what}: the line does not name {case['name']}: {lines[0]}"
        assert "Traceback" not in case["output"]
        assert case["cpu"] < CASE_CPU_S, f"{what}: {case['cpu']:.2f} s of CPU"
        assert not case["heavy"], f"{what}: imported {case['heavy']} to refuse it"
    assert tree(tmp_path) == before, f"{command}: a refusal left {sorted(tree(tmp_path) - before)}"


def test_the_generated_cases_cover_every_command_and_every_kind_of_option():
    kinds = {(_kind(p)) for cmd in COMMANDS.values() for p in cmd.params}
    assert {"text", "int", "float"} <= kinds
    counted = {name: len(cases(name, cmd, "f")) for name, cmd in COMMANDS.items()}
    assert sum(counted.values()) > 500, counted
    assert all(n for name, n in counted.items() if COMMANDS[name].params), counted
