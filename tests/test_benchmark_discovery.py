"""The benchmark seam: benchmarks are found by entry point (`harnessx.benchmarks`) or import path, the core names none of them, and each benchmark's suites, CLI group, simulator hooks and data
options reach every command through the registry."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harnessx.benchmarks.base import Benchmark
from harnessx.benchmarks.registry import cli_groups, get_benchmark, names, simulators, suites
from harnessx.cli.main import app
from harnessx.errors import InputError
from tests.kaware_fixture import write_kaware

REPO = Path(__file__).resolve().parent.parent
CORE = ["harnessx/envs/registry.py", "harnessx/cli/main.py", "harnessx/cli/common.py", "harnessx/cli/search_cmd.py",
        "harnessx/sim/responder.py", "harnessx/sim/profile.py", *sorted(
            str(p.relative_to(REPO)) for folder in ("report", "viewer") for p in (REPO / "harnessx" / folder).rglob("*.py"))]


def invoke(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == code, result.output
    return result.output


def test_the_registry_lists_every_benchmark_by_discovery():
    assert {"asa", "kapro", "cf", "feasigen"} <= set(names())
    assert names()[0] == "asa"
    for name in names():
        bench = get_benchmark(name)
        assert isinstance(bench, Benchmark) and bench.name == name and bench.objectives


def test_the_core_names_no_benchmark():
    """No benchmark's name, suite name, CLI or simulator module appears in the core modules (as a word,
    in code, strings or comments): the core asks the registry."""
    words = set()
    for name in names():
        if name == "asa":
            continue  # the default scorer of the paired suites: the core's own vocabulary (strict SA...)
        bench = get_benchmark(name)
        words |= {name, *bench.suites, *(m.rsplit(".", 1)[-1] for m in (bench.cli, bench.simulator) if m)}
        words |= {o.alias for o in bench.data if o.alias and o.alias != "--tasks-dir"}  # the flag itself
    found = []
    for rel in CORE:
        text = (REPO / rel).read_text(encoding="utf-8")
        for word in sorted(words):
            if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])" if word[0] != "-" else re.escape(word), text, re.IGNORECASE):
                found.append(f"{rel}: {word}")
    assert not found, found


def test_every_benchmark_module_is_registered_in_pyproject():
    """Each module here that defines `BENCHMARK` is an entry point of `harnessx.benchmarks` under its name."""
    import importlib
    import pkgutil
    import tomllib

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]["harnessx.benchmarks"]
    modules = {}
    for info in pkgutil.iter_modules([str(REPO / "harnessx" / "benchmarks")]):
        cls = getattr(importlib.import_module(f"harnessx.benchmarks.{info.name}"), "BENCHMARK", None)
        if cls is not None:
            modules[cls.name] = f"harnessx.benchmarks.{info.name}:{cls.__name__}"
    assert declared == modules


def test_a_benchmark_outside_the_package_is_found_by_import_path(tmp_path, monkeypatch):
    pkg = tmp_path / "plugs"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "demo.py").write_text(
        "from harnessx.benchmarks.base import Benchmark\n"
        "class Demo(Benchmark):\n    name = 'demo'\n"
        "class Nameless(Benchmark):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert get_benchmark("plugs.demo:Demo").name == "demo"
    with pytest.raises(InputError, match="names its benchmark ''"):
        get_benchmark("plugs.demo:Nameless")
    with pytest.raises(InputError, match="not a valid benchmark"):
        get_benchmark("plugs:__name__")
    sys.modules.pop("plugs", None)
    sys.modules.pop("plugs.demo", None)


def test_suites_cli_groups_and_simulators_come_from_the_benchmarks():
    assert suites()["kapro"] == ("kapro", "harnessx.kapro.suite:KaproSuite")
    assert suites()["cf-nosearch"][0] == "cf" and suites()["feasigen"][0] == "feasigen"
    assert set(cli_groups()) == {"kapro", "cf", "feasigen"}
    assert set(simulators()) == {"harnessx.sim.kapro", "harnessx.sim.cf"}
    listed = invoke("--help")
    for name, (_, help_text) in cli_groups().items():
        assert f" {name} " in listed and help_text in listed


def test_benchmark_rates_in_a_profile_come_from_the_simulator_hooks():
    from harnessx.sim.profile import extension_rates

    rates = extension_rates()
    assert any(k.startswith("kapro_") for k in rates) and any(k.startswith("cf_") for k in rates)


def test_data_reaches_the_generic_commands(tmp_path):
    """`--data kaware=DIR` loads KAware files in `tasks`, and `search` records it in the run's suite
    options (so `compare` and `eval` on that run read the same data)."""
    data_dir = write_kaware(tmp_path / "kaware")
    listed = invoke("tasks", "list", "--env", "kapro", "--data", f"kaware={data_dir}")
    builtin = invoke("tasks", "list", "--env", "kapro")
    assert listed != builtin and "total" in listed
    invoke("search", "--objective", "kas", "--env", "kapro", "--data", f"kaware={data_dir}", "--rounds", "1",
           "--proposals", "1", "--name", "kw", "--runs-dir", str(tmp_path / "runs"), "--no-mlflow",
           "--certify-split", "none")
    config = json.loads((tmp_path / "runs" / "kw" / "config.json").read_text())
    assert config["suite_options"] == {"kaware_dir": str(Path(data_dir).resolve())}
    invoke("compare", str(tmp_path / "runs" / "kw"), "--split", "heldout", "--resamples", "100")
    result = json.loads(next((tmp_path / "runs" / "kw" / "compare").glob("compare-*.json")).read_text())
    assert result["evaluation_key"]["suite_options"] == config["suite_options"]  # the run's data, not built-ins


@pytest.mark.parametrize("args, message", [
    (["--data", "kaware"], "'kaware' is not KEY=VALUE"),
    (["--data", "nope=1"], "--env kapro has no data option 'nope'"),
    (["--data", "kaware=/no/such/folder"], "kaware: no such file or folder"),
])
def test_bad_data_is_one_line_and_exit_2(args, message, tmp_path):
    result = CliRunner().invoke(app, ["eval", "--harness", "kapro", "--env", "kapro", *args,
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_data_of_another_environment_is_refused(tmp_path):
    out = invoke("tasks", "list", "--env", "retail", "--data", f"kaware={tmp_path}", code=2)
    assert "--env retail has no data option 'kaware'" in out


def test_the_same_option_set_twice_differently_is_refused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    out = invoke("tasks", "list", "--env", "feasigen", "--tasks-dir", str(tmp_path / "a"), "--data",
                 f"suite={tmp_path / 'b'}", code=2)
    assert "tasks_dir is set twice" in out


def test_tasks_data_lists_every_key():
    out = invoke("tasks", "data")
    for suite in suites():
        for option in get_benchmark(suites()[suite][0]).data:
            assert f"--env {suite}" in out and f"--data {option.key}=" in out


def test_feasigen_eval_takes_a_harness(tmp_path):
    """`feasigen eval --harness` runs that harness (with the dataset's turn cap) and records it; the
    suite also reaches the generic commands as `--data suite=DIR`."""
    import asyncio

    from harnessx.envs.retail.suite import RetailSuite
    from harnessx.feasigen.construct import BuildConfig, build

    suite = tmp_path / "suite"
    asyncio.run(build(RetailSuite(), BuildConfig(env="retail", out=str(suite), limit=4)))
    out = tmp_path / "eval"
    invoke("feasigen", "eval", "--suite", str(suite), "--harness", "A0", "--split", "search", "--split", "heldout",
           "--out", str(out))
    data = json.loads((out / "results.json").read_text())
    from harnessx.harness import load_preset

    assert data["harness"] == f"A0:{load_preset('A0').hash}"
    listed = invoke("tasks", "list", "--env", "feasigen", "--data", f"suite={suite}")
    assert "-masked" in listed
