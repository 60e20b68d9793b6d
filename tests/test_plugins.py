"""Plug-ins without edits (harnessx/plugins.py): a user's environment, proposer and acceptance rule,
in the user's own package, run `eval`, `search` and `compare` with no edit of HarnessX, found either
by entry point (the package installed into a fresh venv) or by import path (not installed at all).
Every way a plug-in can be unusable is one line naming it, exit 2, nothing written; listing names
imports no plug-in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from harnessx import plugins
from harnessx.benchmarks.registry import PLUGINS as BENCHMARK_PLUGINS
from harnessx.envs.registry import ENVIRONMENTS, SUITES
from harnessx.errors import InputError
from harnessx.search.names import PROPOSER_REGISTRY, RULE_REGISTRY

REPO = Path(__file__).resolve().parent.parent
REGISTRIES = {"environments": ENVIRONMENTS, "benchmarks": BENCHMARK_PLUGINS, "proposers": PROPOSER_REGISTRY,
              "acceptance": RULE_REGISTRY}

PLUGIN_MODULE = '''
"""A user's own plug-ins: a smaller toy world, a proposer and a rule built on HarnessX's seams."""
from harnessx.envs.toy import ToySuite
from harnessx.search.greedy import Greedy
from harnessx.search.proposers.rules import RulesProposer


class DemoSuite(ToySuite):
    name = "demo"

    def __init__(self):
        super().__init__(n_sources=3, heldout_sources=3)


class DemoProposer(RulesProposer):
    name = "demo-proposer"


class DemoRule(Greedy):
    name = "demo-rule"
'''


def write_plugin(root: Path) -> Path:
    """The package a user writes: `hxdemo` with its entry points (one of them broken on import)."""
    (root / "hxdemo").mkdir(parents=True)
    (root / "hxdemo" / "__init__.py").write_text("")
    (root / "hxdemo" / "world.py").write_text(PLUGIN_MODULE)
    (root / "hxdemo" / "broken.py").write_text("raise RuntimeError('the plug-in exploded on import')\n")
    (root / "pyproject.toml").write_text(textwrap.dedent('''
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "hx-demo"
        version = "0.1"

        [project.entry-points."harnessx.environments"]
        demo = "hxdemo.world:DemoSuite"
        broken = "hxdemo.broken:Suite"

        [project.entry-points."harnessx.proposers"]
        demo = "hxdemo.world:DemoProposer"

        [project.entry-points."harnessx.acceptance"]
        demo = "hxdemo.world:DemoRule"

        [tool.setuptools]
        packages = ["hxdemo"]
        '''))
    return root


CLI = "import sys; from harnessx.cli.main import app; sys.argv[0] = 'harnessx'; app()"


def run(python: str, cwd: Path, *args: str, pythonpath: str = str(REPO)) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": pythonpath, "COLUMNS": "200"}
    return subprocess.run([python, "-c", CLI, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, timeout=900)


def eval_search_compare(python: str, cwd: Path, env: str, proposer: str, accept: str, pythonpath: str) -> dict:
    """The three commands with the plug-ins, each checked to have used them; the search's config."""
    ran = run(python, cwd, "eval", "--env", env, "--harness", "A1", "--split", "search", "--out", "ev",
              pythonpath=pythonpath)
    assert ran.returncode == 0, ran.stderr[-3000:]
    report = json.loads(next((cwd / "ev").glob("eval-search-*.json")).read_text())
    assert report["splits"]["search"]["n_feasible"] == 3  # the demo world's 3 sources, not the toy's 4
    ran = run(python, cwd, "search", "--env", env, "--proposer", proposer, "--accept", accept, "--rounds", "1",
              "--proposals", "2", "--name", "s", "--runs-dir", "runs", "--no-mlflow", pythonpath=pythonpath)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert f"proposer=demo-proposer accept={accept} (demo-rule)" in " ".join(ran.stdout.split())
    config = json.loads((cwd / "runs" / "s" / "config.json").read_text())
    assert (config["env"], config["proposer"], config["accept"]) == (env, "demo-proposer", "demo-rule")
    ran = run(python, cwd, "compare", "runs/s", "--split", "heldout", "--resamples", "100", pythonpath=pythonpath)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert list((cwd / "runs" / "s" / "compare").glob("compare-*.json"))
    return config


def refused(ran: subprocess.CompletedProcess, *phrases: str) -> None:
    assert ran.returncode == 2, ran.stdout + ran.stderr
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and all(p in lines[0] for p in phrases), ran.stderr


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> tuple[str, Path]:
    """A fresh venv over this interpreter's packages, with the plug-in package installed (editable)."""
    root = tmp_path_factory.mktemp("plugin")
    plugin = write_plugin(root / "hx-demo")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(root / "venv")], check=True)
    python = str(root / "venv" / "bin" / "python")
    installed = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                                "--no-index", "-e", str(plugin)], capture_output=True, text=True, check=False)
    if installed.returncode != 0 and "wheel" in installed.stderr + installed.stdout:
        pytest.skip("setuptools cannot build an editable install here without the `wheel` package")
    assert installed.returncode == 0, installed.stderr[-3000:]
    return python, root


@pytest.mark.slow
def test_an_installed_plugin_runs_eval_search_and_compare_by_its_entry_points(venv, tmp_path):
    python, _ = venv
    eval_search_compare(python, tmp_path, "demo", "demo", "demo", pythonpath=str(REPO))
    helped = run(python, tmp_path, "search", "--help")
    assert helped.returncode == 0 and "demo" in helped.stdout.split("--proposer", 1)[1].split("--meta-model")[0]
    helped = run(python, tmp_path, "eval", "--help")
    env_help = " ".join(helped.stdout.split("--env", 1)[1].split("--", 1)[0].split())
    assert "toy, retail" in env_help and "broken, demo" in env_help  # built-ins first, then plug-ins by name


@pytest.mark.slow
def test_an_installed_plugin_that_fails_is_one_named_line(venv, tmp_path):
    python, _ = venv
    refused(run(python, tmp_path, "eval", "--env", "broken", "--harness", "A1", "--out", "ev"),
            "--env", "entry point 'broken = hxdemo.broken:Suite'", "package hx-demo",
            "RuntimeError: the plug-in exploded on import")
    refused(run(python, tmp_path, "search", "--env", "demo", "--accept", "nope", "--runs-dir", "runs",
                "--no-mlflow"), "--accept", "unknown acceptance rule 'nope'", "demo")
    assert not (tmp_path / "ev").exists() and not (tmp_path / "runs").exists()
    listed = run(python, tmp_path, "eval", "--help")  # listing imports no plug-in: the broken one is listed
    assert listed.returncode == 0 and "broken" in listed.stdout


@pytest.mark.slow
def test_an_import_path_plugin_runs_eval_search_and_compare_with_no_install(tmp_path):
    plugin = write_plugin(tmp_path / "src")
    config = eval_search_compare(sys.executable, tmp_path, "hxdemo.world:DemoSuite", "hxdemo.world:DemoProposer",
                                 "hxdemo.world:DemoRule", pythonpath=f"{REPO}{os.pathsep}{plugin}")
    assert config["env"] == "hxdemo.world:DemoSuite"  # the suite came by import path, nothing installed


@pytest.mark.parametrize("option, spec, phrases", [
    ("--env", "no_such_pkg.mod:Suite", ["import path 'no_such_pkg.mod:Suite' does not import",
                                        "ModuleNotFoundError: No module named 'no_such_pkg'"]),
    ("--env", "harnessx.envs.toy:NoSuite", ["has no attribute 'NoSuite'"]),
    ("--env", "harnessx.harness:Harness", ["the class harnessx.harness.model.Harness, not a valid environment"]),
    ("--proposer", "harnessx.search.greedy:Greedy", ["not a valid proposer", "Proposer"]),
    ("--accept", "harnessx.envs.toy:ToySuite", ["not a valid acceptance rule", "AcceptanceRule"]),
    ("--proposer", "nope", ["unknown proposer 'nope'", "bandit, rules, llm, gepa"]),
])
def test_a_plugin_that_cannot_be_had_is_refused_in_one_line_before_anything_is_written(option, spec, phrases, tmp_path):
    from typer.testing import CliRunner

    from harnessx.cli.main import app

    runs = tmp_path / "runs"
    ran = CliRunner().invoke(app, ["search", "--env", "toy", "--runs-dir", str(runs), "--no-mlflow", option, spec],
                             env={"COLUMNS": "200"})
    lines = ran.output.strip().splitlines()
    assert ran.exit_code == 2 and len(lines) == 1, ran.output
    assert all(p in lines[0] for p in (option, *phrases)), lines[0]
    assert not runs.exists()


# every way a plug-in can fail, for every kind: the class of the cases above, generated
BAD_TARGETS = {
    "missing module": ("hx_no_such_module:Thing", "does not import", "ModuleNotFoundError"),
    "missing attribute": ("hx_bad_plugins:Nothing", "does not import", "AttributeError"),
    "raises on import": ("hx_raising:Thing", "does not import", "ValueError: bad config"),
    "a function": ("hx_bad_plugins:function", "a function", "not a valid"),
    "a number": ("hx_bad_plugins:NUMBER", "a int", "not a valid"),
    "a class of no kind": ("hx_bad_plugins:Plain", "the class hx_bad_plugins.Plain", "not a valid"),
    "an abstract base": ("hx_bad_plugins:Abstract", "the class", "not a valid"),
}


@pytest.fixture
def bad_plugins(tmp_path, monkeypatch):
    (tmp_path / "hx_bad_plugins.py").write_text(
        "from harnessx.search.proposers.base import Proposer\n"
        "def function():\n    pass\nNUMBER = 3\nclass Plain:\n    pass\nclass Abstract(Proposer):\n    pass\n")
    (tmp_path / "hx_raising.py").write_text("raise ValueError('bad config\\nsecond line')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in ("hx_bad_plugins", "hx_raising"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("via", ["import path", "entry point"])
@pytest.mark.parametrize("kind", sorted(REGISTRIES))
@pytest.mark.parametrize("case", sorted(BAD_TARGETS))
def test_every_kind_refuses_every_bad_target_in_one_line(kind, case, via, bad_plugins, monkeypatch):
    registry = REGISTRIES[kind]
    spec, *phrases = BAD_TARGETS[case]
    if via == "entry point":  # the same target, registered by an installed package under the name `bad`
        monkeypatch.setattr(plugins, "_installed", lambda: ((registry.group, "bad", spec, "bad-pkg"),))
        phrases = [p.replace("does not import", "failed to load") for p in phrases]
        phrases += [f"entry point 'bad = {spec}' (group {registry.group}, package bad-pkg)"]
    with pytest.raises(InputError) as caught:
        registry.load("bad" if via == "entry point" else spec)
    message = str(caught.value)
    assert message.startswith(f"{registry.option}: ") and spec in message and "\n" not in message
    assert all(p in message for p in phrases), message
    if "not a valid" in phrases:
        assert registry.kind in message


def test_listing_imports_no_plugin_and_a_name_registered_twice_is_refused_when_used(monkeypatch):
    group = "harnessx.environments"
    monkeypatch.setattr(plugins, "_installed", lambda: (
        (group, "twin", "pkg_a.mod:Suite", "pkg-a"), (group, "twin", "pkg_b.mod:Suite", "pkg-b"),
        (group, "solo", "never_imported_pkg:Suite", "pkg-c")))
    assert ENVIRONMENTS.names()[-2:] == ["solo", "twin"]  # after the built-ins, by name; nothing imported
    assert "never_imported_pkg" not in sys.modules and "solo" in SUITES
    with pytest.raises(InputError, match=r"'twin' is registered twice: entry point 'twin = pkg_a.mod:Suite' "
                                         r"\(group harnessx.environments, package pkg-a\) and entry point"):
        ENVIRONMENTS.load("twin")


def test_the_builtins_are_the_checkout_pyproject_entry_points_and_outrank_stale_metadata(monkeypatch):
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]
    for kind, registry in REGISTRIES.items():
        assert registry.group == f"harnessx.{kind}"
        assert set(declared[registry.group]) <= set(registry.names())
        for name, target in declared[registry.group].items():
            entry = registry.entry(name)
            assert (entry.target, entry.builtin) == (target, True)
    # an editable install's metadata, frozen before a built-in moved, does not shadow the checkout's
    monkeypatch.setattr(plugins, "_installed", lambda: (("harnessx.environments", "toy", "old.place:Toy", "harnessx"),))
    assert ENVIRONMENTS.entry("toy").target == declared["harnessx.environments"]["toy"]
    # installed from a wheel (no checkout pyproject), the metadata is the built-ins' source
    monkeypatch.setattr(plugins, "_checkout_groups", lambda: None)
    assert ENVIRONMENTS.entry("toy").target == "old.place:Toy"


@pytest.mark.parametrize("kind", sorted(REGISTRIES))
def test_every_builtin_loads_as_its_kind(kind):
    registry = REGISTRIES[kind]
    for name in registry.names():
        assert isinstance(registry.load(name), type)  # load checks the kind: a wrong one raises
