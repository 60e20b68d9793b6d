"""Bad input by class, end to end through the `harnessx` command (#47): each refusal is one line,
exit 2, in well under a second of CPU for what the parser can see, and leaves the folder as it was.

Classes: run folders the command needs absent or present (a search's --name, --resume --rounds);
duplicate keys in an input file; NaN in a run file; a harness path that leaves the task's working
directory; a strict-ASCII terminal; a loopback host by name. The per-option classes (empty text,
huge or non-finite numbers, names that are paths) are generated in tests/test_cli_refusals.py.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CPU_S = 1.5  # a fresh interpreter that imports the CLI, checks and refuses (bench: ~0.4 s)


def harnessx(*args: str, cwd: Path, env: dict | None = None) -> tuple[subprocess.CompletedProcess, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", "import sys; from harnessx.cli.main import app; "
                          "sys.argv[0] = 'harnessx'; app()", *args], cwd=cwd, capture_output=True, text=True,
                         check=False, timeout=900, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def tree(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*") if p.is_file()}


def refused(out: subprocess.CompletedProcess, *named: str) -> str:
    lines = (out.stdout + out.stderr).strip().splitlines()
    assert out.returncode == 2, out.stdout[-2000:] + out.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for name in named:
        assert name in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(("setup", "args", "named"), [
    ("existing", ["search", "--env", "toy", "--name", "taken"], ["--name", "already exists"]),
    ("existing", ["search", "--env", "toy"], ["--name (default", "already exists"]),
    ("none", ["search", "--env", "toy", "--name", "ghost", "--resume"], ["--resume", "nothing to resume"]),
    ("finished-3", ["search", "--env", "toy", "--name", "taken", "--resume", "--rounds", "0"], ["--rounds", "round 3"]),
    ("none", ["search", "--env", "toy", "--proposer", "llm"], ["--proposer llm", "needs a meta-model"]),  # before DSPy
])
def test_a_search_run_folder_that_is_wrong_for_the_command_is_refused_before_the_search_loads(tmp_path, setup,
                                                                                                args, named):
    for name in ("taken", "joint-toy"):
        if setup != "none":
            (tmp_path / "runs" / name).mkdir(parents=True)
            (tmp_path / "runs" / name / "config.json").write_text("{}")
        if setup == "finished-3":
            (tmp_path / "runs" / name / "checkpoint.json").write_text(json.dumps({"round": 3}))
    before = tree(tmp_path)
    out, cpu = harnessx(*args, cwd=tmp_path)
    refused(out, *named)
    assert cpu < CPU_S, f"{cpu:.2f} s of CPU"
    assert tree(tmp_path) == before


PLUG_INS = [("--env", "bogus"), ("--accept", "bogus"), ("--env", "no_such_pkg.mod:Suite"),
            ("--accept", "no_such_pkg.mod:Rule")]


@pytest.mark.parametrize(("command", "option", "value"), [("search", *p) for p in PLUG_INS]
                         + [("plan", *p) for p in PLUG_INS] + [("search", "--proposer", "bogus"),
                                                               ("search", "--proposer", "no_such_pkg.mod:P")])
def test_a_plug_in_name_or_import_path_that_does_not_resolve_is_refused_before_the_search_loads(tmp_path, command,
                                                                                                 option, value):
    out, cpu = harnessx(command, option, value, cwd=tmp_path)
    refused(out, option, value)
    assert cpu < CPU_S, f"{cpu:.2f} s of CPU"
    assert tree(tmp_path) == {}


def test_a_key_given_twice_in_a_harness_is_refused_naming_file_and_key(tmp_path):
    (tmp_path / "h.yaml").write_text("name: x\nswitches:\n  abandon_mode: file\n  abandon_mode: none\n")
    out, _ = harnessx("eval", "--env", "toy", "--harness", "h.yaml", "--out", "o", cwd=tmp_path)
    line = refused(out, "h.yaml", "duplicate key 'abandon_mode'")
    assert "line 4" in line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("path", ["/tmp/x.md", "../x.md", "~/x.md", "a/../../x.md", "a\\x.md"])
def test_an_abandon_file_outside_the_working_directory_is_refused(tmp_path, path):
    (tmp_path / "h.yaml").write_text(f"name: x\nswitches:\n  abandon_mode: file\n  abandon_file: {json.dumps(path)}\n")
    out, _ = harnessx("eval", "--env", "toy", "--harness", "h.yaml", "--out", "o", cwd=tmp_path)
    refused(out, "h.yaml", "switches.abandon_file", "working directory")
    assert not (tmp_path / "o").exists()


def test_an_index_sqlite_cannot_open_is_one_line_and_leaves_nothing(tmp_path):
    before = tree(tmp_path)
    out, _ = harnessx("cf", "eval", "--index", "/proc/x.sqlite", "--out", "o", cwd=tmp_path)
    refused(out, "--index", "/proc/x.sqlite")
    assert tree(tmp_path) == before


def test_a_json_object_with_a_key_twice_is_refused():
    from harnessx.errors import InputError
    from harnessx.io_read import parse_json

    with pytest.raises(InputError, match="duplicate key 'a'"):
        parse_json('{"a": 1, "b": {"a": 2}, "a": 3}', "x.json", "JSON")
    assert parse_json('{"a": 1, "b": {"a": 2}}', "x.json", "JSON") == {"a": 1, "b": {"a": 2}}


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_ledger_row_with_a_non_finite_objective_is_named(tmp_path, value):
    from harnessx.errors import InputError
    from harnessx.io_read import read_jsonl
    from harnessx.search.rundir import LEDGER_RECOVERY, ledger_row

    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text('{"round": 0, "objective": {"value": 0.5}}\n'
                      f'{{"round": 1, "objective": {{"value": {value}}}}}\n{{"round": 2}}\n')
    with pytest.raises(InputError, match=r"ledger.jsonl:2: .*objective\.value"):
        read_jsonl(ledger, LEDGER_RECOVERY, row_check=ledger_row, kind="ledger line")


def test_localhost_is_a_loopback_host_and_a_public_address_is_not():
    import typer

    from harnessx.cli.checks import loopback_host

    for host in ("localhost", "LOCALHOST", "127.0.0.1", "127.3.2.1", "::1"):
        assert loopback_host(host) == host
    for host in ("8.8.8.8", "example.com", "0.0.0.0"):
        with pytest.raises(typer.BadParameter):
            loopback_host(host)


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("toyrun")
    out, _ = harnessx("search", "--env", "toy", "--rounds", "1", "--no-mlflow", "--name", "t", cwd=root)
    assert out.returncode == 0, out.stderr[-3000:]
    return root, out.stdout


@pytest.mark.slow
def test_each_rollout_is_one_copy_on_disk_shared_by_the_run_and_the_cache(toy_run):
    root, stdout = toy_run
    run_files = sorted((root / "runs" / "t" / "rollouts").rglob("*.json*"))
    assert run_files
    for path in run_files:
        twin = root / "runs" / "cache" / path.relative_to(root / "runs" / "t" / "rollouts")
        assert twin.is_file() and twin.stat().st_ino == path.stat().st_ino, path
    assert not list(root.rglob("*.tmp"))
    assert "MB are rollouts shared with the rollout cache" in stdout


@pytest.mark.slow
@pytest.mark.parametrize("args", [["diff", "runs/t"], ["export", "runs/t", "--out", "h.yaml"],
                                  ["report", "runs/t", "--no-mlflow"], ["compare", "--env", "toy", "runs/t"]])
def test_a_strict_ascii_terminal_shows_the_clis_own_dashes_without_failing(toy_run, args):
    root, _ = toy_run
    out, _ = harnessx(*args, cwd=root, env={"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii"})
    assert out.returncode == 0, out.stdout[-1500:] + out.stderr[-1500:]
    assert "UnicodeEncodeError" not in out.stdout + out.stderr
