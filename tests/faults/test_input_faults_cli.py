"""Bad input through the CLI: OS and decoding failures, missing optional extras, numbers out of range,
two searches sharing one Optuna database, and leftovers of a failed start. Each is one line naming
the file or option and what was expected, exit 2, no traceback, and nothing half-written."""

from __future__ import annotations

import errno
from pathlib import Path
import json
import os
import shutil
import socket
import sys

import optuna
import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app

SEARCH = ["search", "--env", "toy", "--rounds", "1", "--proposals", "1", "--no-mlflow", "--concurrency", "4"]


def cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def refused(result, *named: str) -> str:
    """Exit 2, exactly one line on stderr (naming each of `named`), no traceback."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    for name in named:
        assert name in lines[0], lines[0]
    return lines[0]


def leftovers(root) -> list[str]:
    """Temporary files anywhere under root (a write that was not atomic leaves one behind)."""
    return [str(p) for p in root.rglob("*") if p.name.endswith(".tmp")]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished toy search, made once through the CLI; tests damage copies of it."""
    runs = tmp_path_factory.mktemp("runs")
    result = cli(*SEARCH, "--name", "done", "--runs-dir", runs)
    assert result.exit_code == 0, result.output
    return runs / "done"


@pytest.fixture
def run(finished, tmp_path):
    return shutil.copytree(finished, tmp_path / "runs" / "done")


# --- OS and decoding failures ---------------------------------------------------------------------
def test_compare_and_report_drop_a_torn_ledger_tail_as_resume_does(run, tmp_path):
    ledger = run / "ledger.jsonl"
    whole = ledger.read_text()
    ledger.write_text(whole + whole.splitlines()[-1][:37])  # kill -9 mid-append: no newline
    compared = cli("compare", run, "--split", "search", "--sources", "1", "--out", tmp_path / "cmp")
    assert compared.exit_code == 0, compared.output
    reported = cli("report", run, "--no-mlflow")
    assert reported.exit_code == 0, reported.output
    assert (run / "report" / "report.md").is_file()


@pytest.mark.parametrize(("command", "damage", "named"), [
    ("compare", ("summary.json", b'{"selected": '), "summary.json: cannot parse: not valid JSON"),
    ("report", ("summary.json", b'{"selected": '), "summary.json: cannot parse: not valid JSON"),
    ("report", ("summary.json", b'{"model": "\xff\xfe"}'), "summary.json: not UTF-8"),
    ("compare", ("ledger.jsonl", b"garbage\n"), "ledger.jsonl:1: corrupt ledger line"),
    ("report", ("config.json", b"[" * 100_000), "config.json: nested too deeply"),
])
def test_a_corrupt_run_file_is_one_line_naming_it(run, tmp_path, command, damage, named):
    name, data = damage
    path = run / name
    if name == "ledger.jsonl":  # a bad line before good ones: not a torn tail, an error naming the line
        data += path.read_bytes()
    path.write_bytes(data)
    args = ["--split", "search", "--out", tmp_path / "out"] if command == "compare" else ["--no-mlflow"]
    refused(cli(command, run, *args), named)
    assert not (tmp_path / "out").exists() and not (run / "report").exists()


@pytest.mark.parametrize("command", ["kapro", "cf", "feasigen"])
def test_a_result_file_that_is_not_json_is_named(tmp_path, command):
    name = {"kapro": "kapro-eval.json", "cf": "cf-eval.json", "feasigen": "results.json"}[command]
    (tmp_path / name).write_text("this is not JSON\n")
    line = refused(cli(command, "report", tmp_path), name, "not valid JSON")
    assert "expected" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no report written


@pytest.mark.parametrize("content", [b"name: x\nrole: \xff\xfe\n", ("[" * 100_000).encode()],
                         ids=["not-utf8", "nested"])
@pytest.mark.parametrize("where", ["harness", "space", "labels", "cf-items", "kaware"])
def test_a_non_utf8_or_deeply_nested_input_file_is_named(tmp_path, content, where):
    name = {"labels": "labels.csv", "cf-items": "items.jsonl", "kaware": "kaware/heldout.jsonl"}.get(where, "in.yaml")
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(content)
    runs, out = tmp_path / "runs", tmp_path / "out"
    result = {"harness": lambda: cli("eval", "--harness", path, "--env", "toy", "--out", out),
              "space": lambda: cli(*SEARCH, "--space", path, "--runs-dir", runs),
              "labels": lambda: cli("feasigen", "agreement", path),
              "cf-items": lambda: cli("cf", "eval", "--items", path, "--out", out),
              "kaware": lambda: cli("kapro", "eval", "--kaware-dir", path.parent, "--out", out)}[where]()
    refused(result, str(path))
    assert not runs.exists() and not out.exists()


def test_a_run_name_too_long_for_the_filesystem(tmp_path):
    runs = tmp_path / "runs"
    refused(cli(*SEARCH, "--name", "x" * 300, "--runs-dir", runs), "--name", "at most 128")  # before the OS says so
    assert not runs.exists() or not any(runs.iterdir())


@pytest.mark.parametrize("target", ["directory", "under-a-file", "proc"])
def test_export_out_that_cannot_be_written(run, tmp_path, target):
    (tmp_path / "afile").write_text("keep")
    out = {"directory": tmp_path, "under-a-file": tmp_path / "afile" / "h.yaml", "proc": "/proc/harness.yaml"}[target]
    refused(cli("export", run, "--out", out), "expected")
    assert (tmp_path / "afile").read_text() == "keep" and not leftovers(tmp_path)


def test_a_read_only_runs_dir_is_one_line(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    real_mkdir = os.mkdir

    def read_only(path, *args, **kwargs):
        if str(path).startswith(str(runs)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", read_only)
    refused(cli(*SEARCH, "--runs-dir", runs), str(runs), "read-only")
    assert not runs.exists()


def test_a_full_disk_during_the_first_write_leaves_no_run_dir(tmp_path, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    runs = tmp_path / "runs"
    refused(cli(*SEARCH, "--name", "full", "--runs-dir", runs), "config.json", "free space")
    assert not (runs / "full").exists() and not leftovers(tmp_path)


# --- missing optional extras and unreachable stores -----------------------------------------------
@pytest.fixture
def without(monkeypatch):
    """Make `import <name>` fail, as on a machine without that extra."""
    def block(*names: str) -> None:
        for name in names:
            for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                monkeypatch.delitem(sys.modules, loaded)
            monkeypatch.setitem(sys.modules, name, None)
    return block


@pytest.mark.parametrize("option", ["--storage", "--tracking-uri"])
def test_postgresql_without_the_postgres_extra_names_it(tmp_path, without, option):
    without("psycopg")
    runs = tmp_path / "runs"
    url = f"postgresql://hx@127.0.0.1:{closed_port()}/hx"
    extra = ["--tracking-uri", url] if option == "--tracking-uri" else ["--no-mlflow", "--storage", url]
    args = [a for a in SEARCH if a != "--no-mlflow"] + extra
    refused(cli(*args, "--runs-dir", runs), option, "pip install 'harnessx[postgres]'")
    assert not runs.exists()


def test_ray_executor_without_ray_names_the_extra(tmp_path, without):
    without("ray")
    runs = tmp_path / "runs"
    refused(cli(*SEARCH, "--executor", "ray", "--runs-dir", runs), "--executor ray", "pip install 'harnessx[ray]'")
    assert not runs.exists()


def test_export_to_a_postgres_registry_without_the_extra_writes_nothing(run, tmp_path, without):
    without("psycopg")
    out = tmp_path / "h.yaml"
    refused(cli("export", run, "--out", out, "--mlflow-register", "m", "--tracking-uri",
                f"postgresql://hx@127.0.0.1:{closed_port()}/hx"), "--tracking-uri", "harnessx[postgres]")
    assert not out.exists()


@pytest.mark.requires("psycopg")  # without it the refusal names the missing extra (tested above)
@pytest.mark.parametrize("how", ["queue", "storage", "mlflow", "worker", "export"])
def test_a_database_on_a_closed_port_is_refused_before_anything_exists(run, tmp_path, how):
    url = f"postgresql://hx@127.0.0.1:{closed_port()}/hx"
    runs, out = tmp_path / "fresh", tmp_path / "h.yaml"
    args = {"queue": [*SEARCH, "--executor", "queue", "--storage", url, "--runs-dir", runs],
            "storage": [*SEARCH, "--storage", url, "--runs-dir", runs],
            "mlflow": [*[a for a in SEARCH if a != "--no-mlflow"], "--tracking-uri", url, "--runs-dir", runs],
            "worker": ["worker", "--storage", url, "--study", "s", "--wait", "1"],
            "export": ["export", run, "--out", out, "--mlflow-register", "m", "--tracking-uri", url]}[how]
    refused(cli(*args), "cannot connect", "127.0.0.1")
    assert not runs.exists() and not out.exists()


# --- numbers out of range -------------------------------------------------------------------------
@pytest.mark.parametrize(("args", "option"), [
    (["view", "--port", "99999"], "--port"),
    (["view", "--port", "-1"], "--port"),
    (["local", "serve", "--port", "70000"], "--port"),
    (["plan", "--env", "toy", "--effect", "0"], "--effect"),
    (["plan", "--env", "toy", "--effect", "nan"], "--effect"),
    (["plan", "--env", "toy", "--effect", "-0.05"], "--effect"),
    (["plan", "--env", "toy", "--max-cost", "inf"], "--max-cost"),
    (["feasigen", "sample", "--size", "A=0"], "--size"),
    (["feasigen", "sample", "--size", "A=10", "--margin", "0"], "--margin"),
    (["feasigen", "sample", "--size", "A=10", "--confidence", "1.5"], "--confidence"),
    (["feasigen", "sample", "--size", "A=10", "--seed", "-3"], "--seed"),
    (["tasks", "list", "--env", "toy", "--limit", "-1"], "--limit"),
    (["tasks", "list", "--env", "toy", "--split", "bogus"], "--split"),
    ([*SEARCH, "--max-cost", "nan"], "--max-cost"),
    ([*SEARCH, "--seed", "-1"], "--seed"),
    ([*SEARCH, "--temperature", "nan"], "--temperature"),
    (["eval", "--harness", "A0", "--env", "toy", "--top-p", "nan"], "--top-p"),
    (["worker", "--storage", "sqlite:///x.db", "--study", "s", "--wait", "inf"], "--wait"),
])
def test_a_number_out_of_range_names_the_option_and_range(tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    refused(cli(*args), option)
    assert list(tmp_path.iterdir()) == []


# --- two searches on one Optuna database ----------------------------------------------------------
def test_two_searches_with_one_name_on_one_storage_keep_their_own_studies(tmp_path):
    storage = f"sqlite:///{tmp_path / 'optuna.db'}"
    first, second = tmp_path / "a", tmp_path / "b"
    for runs, model in ((first, "sim/baseline"), (second, "sim/weak")):
        result = cli(*SEARCH, "--name", "same", "--model", model, "--storage", storage, "--runs-dir", runs)
        assert result.exit_code == 0, result.output
    studies = {s.study_name: s for s in optuna.get_all_study_summaries(storage)}
    assert len(studies) == 2  # one per run, not one shared
    for runs, model in ((first, "sim/baseline"), (second, "sim/weak")):
        run_id = json.loads((runs / "same" / "config.json").read_text())["run_id"]
        study = studies[f"same@{run_id}"]
        rows = (runs / "same" / "ledger.jsonl").read_text().splitlines()
        assert study.user_attrs["model"] == model and study.n_trials == len(rows)
    resumed = cli(*SEARCH[:3], "--rounds", "2", *SEARCH[5:], "--name", "same", "--model", "sim/baseline",
                  "--storage", storage, "--runs-dir", first, "--resume")
    assert resumed.exit_code == 0, resumed.output
    after = {s.study_name: s.n_trials for s in optuna.get_all_study_summaries(storage)}
    first_id = json.loads((first / "same" / "config.json").read_text())["run_id"]
    rows = (first / "same" / "ledger.jsonl").read_text().splitlines()
    assert after[f"same@{first_id}"] == len(rows) > studies[f"same@{first_id}"].n_trials  # found its own
    assert sum(after.values()) - after[f"same@{first_id}"] == sum(
        s.n_trials for n, s in studies.items() if n != f"same@{first_id}")  # the other's untouched


# --- leftovers of a start that failed -------------------------------------------------------------
def test_a_budget_below_r0_is_refused_before_the_run_dir_and_the_retry_runs(tmp_path):
    runs = tmp_path / "runs"
    refused(cli(*SEARCH, "--name", "tiny", "--max-rollouts", "1", "--runs-dir", runs), "--max-rollouts", "R0")
    assert not (runs / "tiny").exists()
    retry = cli(*SEARCH, "--name", "tiny", "--runs-dir", runs)
    assert retry.exit_code == 0, retry.output


def test_report_to_a_missing_sqlite_store_creates_nothing(run, tmp_path):
    store = tmp_path / "nonexistent" / "x.db"
    refused(cli("report", run, "--tracking-uri", f"sqlite:///{store}", "--mlflow-run-id", "abc"),
            "--tracking-uri", str(store))
    assert not store.parent.exists() and not (run / "report").exists()


def test_a_disk_that_fills_mid_search_leaves_no_tmp_file(tmp_path, monkeypatch):
    written = {"n": 0}
    real = Path.write_text

    def filling(self, data, *args, **kwargs):
        if self.name.endswith(".tmp"):
            written["n"] += 1
            if written["n"] > 5:  # the sixth rollout result: half of it lands, then the disk is full
                real(self, data[: len(data) // 2], *args, **kwargs)
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", filling)
    result = cli(*SEARCH, "--name", "fills", "--runs-dir", tmp_path / "runs")
    refused(result, "No space left on device", "free space")
    assert written["n"] > 5
    assert not list(tmp_path.rglob("*.tmp")), sorted(tmp_path.rglob("*.tmp"))
