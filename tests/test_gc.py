"""`harnessx gc` (#47): it removes exactly the shared cache's entries that no folder of the runs folder
uses, keeps what a kept run and a compare read, is refused while a command holds the runs folder, and
never follows a symbolic link. End to end through the CLI on the toy environment (in-process)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harnessx.agent.cache_gc import KEY_FILE, find_garbage
from harnessx.agent.runner import RolloutCache
from harnessx.agent.shared_cache import RootHold, RunsRootBusy
from harnessx.cli.main import app

SEARCH = ["search", "--env", "toy", "--rounds", "1", "--proposals", "1", "--no-mlflow"]


def cli(*args: str):
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return result


def ok(*args: str) -> str:
    result = cli(*args)
    assert result.exit_code == 0, result.output[-3000:]
    return result.output


def keys(folder: Path) -> set[str]:
    """Rollout keys with a record in `folder` (a rollouts/ or the cache)."""
    return {m.group(1) for p in folder.rglob("*") if (m := KEY_FILE.match(p.name)) and not m.group(2)}


def files(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_ino for p in root.rglob("*") if p.is_file()}


def model_calls(run: Path) -> int:
    return json.loads((run / "summary.json").read_text())["model_calls"]


def test_gc_frees_exactly_the_deleted_runs_rollouts_and_what_is_kept_still_reads(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = tmp_path / "runs"
    ok(*SEARCH, "--name", "a")
    ok(*SEARCH, "--name", "b", "--seed", "3")
    ok("compare", "--env", "toy", "A0", "A1", "--out", "runs/cmp")
    assert model_calls(runs / "a") > 0
    used = keys(runs / "a" / "rollouts") | keys(runs / "cmp" / "rollouts")
    orphaned = keys(runs / "b" / "rollouts") - used
    assert orphaned and used  # the deleted run had rollouts of its own, and the others share the cache
    shutil.rmtree(runs / "b")  # a user deleting a run folder
    (runs / "cache" / "ab").mkdir(exist_ok=True)
    (runs / "cache" / "ab" / ("ab" * 12 + ".json.tmp")).write_text("{")  # a crashed write's leftover

    before = files(tmp_path)
    dry = ok("gc", "--dry-run")
    assert files(tmp_path) == before  # a dry run removes nothing
    listed = {line.split()[2] for line in dry.splitlines() if line.startswith("would remove runs/")}
    assert {KEY_FILE.match(Path(p).name).group(1) for p in listed} == orphaned | {"ab" * 12}
    assert len(listed) == 2 * len(orphaned) + 1

    out = ok("gc")
    assert keys(runs / "cache") == used  # exactly the orphans went, nothing in use did
    assert not list((runs / "cache").rglob("*.tmp"))
    for key in used & keys(runs / "a" / "rollouts"):  # still one copy on disk: the kept run's link
        own = runs / "a" / "rollouts" / key[:2] / f"{key}.json"
        assert own.stat().st_ino == (runs / "cache" / key[:2] / f"{key}.json").stat().st_ino
    lines = out.splitlines()
    assert lines[0].startswith("runs: ") and lines[0].endswith(" before") and lines[-1].endswith(" after")
    assert f"removed {len(orphaned) + 1} cache entries" in out
    assert "removed 0 cache entries" in ok("gc")  # nothing left to collect

    ok(*SEARCH, "--name", "a2")  # the kept run's rollouts are still in the cache: a repeat pays nothing
    assert model_calls(runs / "a2") == 0
    (runs / "a" / "checkpoint.json").unlink()  # the documented redo: resume from R0, every rollout read back
    ok(*SEARCH, "--name", "a", "--resume")
    assert model_calls(runs / "a") == 0
    ok(*SEARCH, "--name", "b2", "--seed", "3")  # the deleted run's were removed: they are paid again
    assert model_calls(runs / "b2") > 0

    from harnessx.viewer.store import RunsRoot
    compare = RunsRoot(runs).run("cmp")
    assert compare.rollout_keys() and all(compare.trajectory(k) for k in compare.rollout_keys())
    assert "(0 model calls," in ok("compare", "--env", "toy", "A0", "A1", "--out", "runs/cmp")


def test_gc_is_refused_while_a_command_holds_the_runs_folder_and_runs_once_it_lets_go(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "cache" / "cd").mkdir(parents=True)
    orphan = tmp_path / "runs" / "cache" / "cd" / ("cd" * 12 + ".json")
    orphan.write_text("{}")
    cache = RolloutCache(tmp_path / "runs" / "x" / "rollouts", shared=tmp_path / "runs" / "cache")  # what a search holds
    for args in (["gc"], ["gc", "--dry-run"]):
        result = cli(*args)
        assert result.exit_code == 2 and "runs: in use by a running harnessx command" in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1
    assert orphan.exists()
    cache.close()
    assert "removed 1 cache entries" in ok("gc")
    assert not orphan.exists()


def test_a_search_holds_the_runs_folder_while_its_rollouts_run(tmp_path, monkeypatch):
    """The lock is taken by the search itself: gc, tried from inside one of its rollouts, is refused."""
    from harnessx.agent import runner as runner_module

    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    tried: list[bool] = []
    real = runner_module.Runner.run_one

    async def run_one(self, *args, **kwargs):
        if not tried:
            try:
                RootHold(tmp_path / "runs", exclusive=True).release()
                tried.append(False)
            except RunsRootBusy:
                tried.append(True)
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(runner_module.Runner, "run_one", run_one)
    ok(*SEARCH, "--name", "s")
    assert tried == [True]
    RootHold(tmp_path / "runs", exclusive=True).release()  # and lets go when it ends


def test_gc_never_follows_a_symbolic_link(tmp_path):
    outside = tmp_path / "outside"
    (outside / "ef").mkdir(parents=True)
    victim = outside / "ef" / ("ef" * 12 + ".json")
    victim.write_text("{}")
    root = tmp_path / "runs"
    (root / "cache").mkdir(parents=True)
    (root / "cache" / "ef").symlink_to(outside / "ef")  # a linked sub-folder of the cache
    (root / "cache" / "12").mkdir()
    (root / "cache" / "12" / ("12" * 12 + ".json")).symlink_to(victim)  # a linked entry
    (root / "elsewhere").symlink_to(outside)  # a run folder reached through a link keeps nothing
    garbage = find_garbage(root)
    assert garbage.files == [] and sorted(garbage.skipped) == ["cache/12/" + "12" * 12 + ".json", "cache/ef"]
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "cache").symlink_to(outside)
    with pytest.raises(ValueError, match="symbolic link"):
        find_garbage(linked)
    CliRunner().invoke(app, ["gc", str(root)])
    assert victim.exists()
    result = cli("gc", str(linked))
    assert result.exit_code == 2 and "symbolic link" in result.output and victim.exists()


@pytest.mark.parametrize("name", ["w[/x]", "w[bold]y", "w[red]z[/red]", "[link=file:///x]w"])
def test_a_runs_folder_named_like_console_markup_is_printed_as_it_is(tmp_path, name):
    root = tmp_path / name
    (root / "cache").mkdir(parents=True)
    for args in (["gc", str(root), "--dry-run"], ["gc", str(root)]):
        result = cli(*args)
        assert result.exit_code == 0, result.output
        assert f"{root}:" in " ".join(result.output.split()) or f"{root}:" in result.output.replace("\n", "")
