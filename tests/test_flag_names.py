"""One name per meaning across commands: the MLflow store is `--tracking-uri`, rollouts in flight
`--concurrency`, the task-agent model `--model`; the old names are hidden aliases that still work;
`probe belief` and `probe challenge` bring R0 alike; every `--env` help lists every environment."""

from __future__ import annotations

import pytest
import typer

from harnessx.cli.aliases import RENAMED, rewrite
from harnessx.cli.lazy import load_command
from harnessx.cli.main import COMMANDS, app
from harnessx.cli.scale_opts import pool_size
from harnessx.envs.registry import SUITES
from harnessx.errors import InputError

OLD_NAMES = {"--mlflow-uri", "--slots", "--workers", "--system"}
# meaning -> the commands that have it (all of them must spell it the one way)
MEANINGS = {
    "--tracking-uri": {"search", "export", "report"},
    "--concurrency": {"search", "eval", "compare", "probe belief", "probe challenge", "worker", "kapro eval",
                      "cf eval", "feasigen build", "feasigen eval"},
    "--model": {"search", "eval", "compare", "probe belief", "probe challenge", "plan", "kapro eval", "cf eval",
                "feasigen build", "feasigen eval"},
}


def commands() -> dict[str, typer.core.TyperCommand]:
    """Every leaf command by its path (`probe belief`), each module imported as when it runs."""
    found: dict[str, typer.core.TyperCommand] = {}

    def walk(path: str, cmd: typer.core.TyperCommand) -> None:
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(f"{path} {name}", sub)
        else:
            found[path] = cmd

    root = typer.main.get_command(app)
    for name, spec in COMMANDS.items():
        walk(name, load_command(name, *spec) if spec else root.commands[name])
    return found


def visible(cmd: typer.core.TyperCommand) -> set[str]:
    return {o for p in cmd.params if not getattr(p, "hidden", False) for o in [*p.opts, *p.secondary_opts]}


ALL = commands()


def test_each_meaning_has_one_name_on_every_command_that_has_it():
    for option, paths in MEANINGS.items():
        missing = sorted(p for p in paths if option not in visible(ALL[p]))
        assert not missing, f"{option} missing on {missing}"
    shown_old = sorted(f"{path} {o}" for path, cmd in ALL.items() for o in visible(cmd) & OLD_NAMES)
    assert not shown_old


@pytest.mark.parametrize(("path", "old", "new"), [(p, o, n) for p, r in RENAMED.items() for o, n in r.items()])
def test_an_old_name_still_works_as_a_hidden_alias(path, old, new, capsys, tmp_path):
    cmd = ALL[path]
    value = {"--slots": "3", "--system": "sim/weak"}.get(old, "sqlite:///x.db")
    # export's run folder must exist
    required = {"feasigen eval": ["--suite", "s"], "export": [str(tmp_path)]}.get(path, [])
    ctx = cmd.make_context(path, [*required, old, value])
    param = next(p for p in cmd.params if new in p.opts)
    assert ctx.params[param.name] in (value, int(value) if value.isdigit() else value, (value,), [value])
    assert f"{old} is now {new}" in capsys.readouterr().err
    assert old not in visible(cmd)


def test_rewrite_handles_equals_and_stops_at_double_dash():
    args, made = rewrite(["--slots=2", "x", "--", "--slots"], {"--slots": "--concurrency"})
    assert args == ["--concurrency=2", "x", "--", "--slots"] and made == [("--slots", "--concurrency")]


def test_search_workers_splits_into_ray_actors_and_local_rollouts():
    assert pool_size("ray", None, None, 4) == 4
    assert pool_size("queue", None, None, 0) == 0
    assert pool_size("ray", 3, None, None) == 3 and pool_size("queue", None, 2, None) == 2
    for args in (("asyncio", 2, None, None), ("queue", 2, None, None), ("ray", None, 1, None),
                 ("asyncio", None, None, 2)):
        with pytest.raises(InputError):
            pool_size(*args)
    search = ALL["search"]
    assert {"--ray-actors", "--local-rollouts"} <= visible(search) and "--workers" not in visible(search)
    assert search.make_context("search", ["--workers", "2"]).params["workers"] == 2


def test_probe_belief_and_challenge_bring_r0_alike():
    def r0_default(path: str) -> bool:
        return next(p for p in ALL[path].params if p.name == "r0").default

    assert r0_default("probe belief") == r0_default("probe challenge") == r0_default("compare")


def test_every_env_help_lists_every_environment():
    with_env = {path: next(p for p in cmd.params if "--env" in p.opts) for path, cmd in ALL.items()
                if "--env" in visible(cmd) and path != "feasigen build"}  # build's sources: retail, terminal
    assert {"search", "eval", "compare", "probe belief", "probe challenge", "tasks list", "plan"} <= set(with_env)
    for path, param in with_env.items():
        missing = [name for name in SUITES if name not in param.help]
        assert not missing, f"{path} --env help lacks {missing}"
