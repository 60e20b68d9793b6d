"""Option checks by meaning, run while click parses the command line (before a command imports its
libraries or writes anything): each is a typer callback, so a refusal is one usage error naming the
option the user gave, exit 2, in a fraction of a second.

What each option means is checked against light tables only: the objective names the benchmarks
declare (`Benchmark.objective_names`), the split names of a paired suite, the search spaces on disk.
A check that needs the suite or the model (a split only some suite has, a key a provider needs)
stays with the command, before its first rollout.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, get_args

import typer

from harnessx import errors

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
NAME_EXPECTED = "a name of letters, digits, '.', '_' and '-' (at most 128, not starting with '.' or '-')"
LOOPBACK_NAMES = ("localhost",)
# Counts that become work (cache keys, rollouts, rows): bounded by what any run could use, so that a
# typo'd 10**6 is refused in the parser instead of building keys for minutes.
EPOCHS_MAX = 1000
ROUNDS_MAX = 1000
PROPOSALS_MAX = 100


def _each(value: Any) -> list[Any]:
    return [v for v in (value if isinstance(value, list | tuple) else [value]) if v is not None]


def run_name(value: str | None) -> str | None:
    """A run name: one folder under --runs-dir, never a path (`..`, `../x`, `/abs`, `a/b`)."""
    if value is not None and not NAME.fullmatch(value):
        raise typer.BadParameter(f"{value!r} is not a name (expected {NAME_EXPECTED}; it names a folder "
                                 "under --runs-dir)")
    return value


def registry_name(value: str | None) -> str | None:
    """A model-registry name (MLflow): the same alphabet as a run name."""
    if value is not None and not NAME.fullmatch(value):
        raise typer.BadParameter(f"{value!r} is not a registered-model name (expected {NAME_EXPECTED})")
    return value


def one_of(names: Callable[[], Iterable[str]], what: str, *, extra: tuple[str, ...] = ()) -> Callable[[Any], Any]:
    """A callback refusing a value (or any item of a repeated option) that is not among `names()`."""

    def check(value: Any) -> Any:
        known = [*names(), *extra]
        for item in _each(value):
            if item not in known:
                raise typer.BadParameter(f"unknown {what} {item!r} (expected {errors.one_of(known)})")
        return value

    return check


def _objective_names() -> list[str]:
    from harnessx.benchmarks.registry import objective_names

    return objective_names()


def _paired_splits() -> tuple[str, ...]:
    from harnessx.tasks import Split

    return get_args(Split)


objective = one_of(_objective_names, "objective")
paired_split = one_of(_paired_splits, "split")
_claim_split = one_of(lambda: [s for s in _paired_splits() if s != "search"], "split", extra=("none",))


def certify_split(value: Any) -> Any:
    """The claim's split: never the one selection used (said so, not as an unknown split)."""
    if value == "search":
        raise typer.BadParameter("'search' is the split selection used (expected heldout, independent, another "
                                 "split of the suite that the search never saw, or none)")
    return _claim_split(value)


def space(value: str | None) -> str | None:
    """A search space: a name in search_spaces/ or an existing YAML file."""
    from harnessx.search.names import SPACE_DIR

    if value is None:
        return value
    if value.endswith((".yaml", ".yml")):
        if not Path(value).is_file():
            raise typer.BadParameter(f"no such YAML file {value!r} (expected a search-space file)")
    elif not (SPACE_DIR / f"{value}.yaml").is_file():
        names = sorted(p.stem for p in SPACE_DIR.glob("*.yaml"))
        raise typer.BadParameter(f"no search space {value!r} (expected a YAML path or {errors.one_of(names)})")
    return value


def loopback_host(value: str | None) -> str | None:
    """A loopback address, or `localhost`."""
    if value is None or value.lower() in LOOPBACK_NAMES:
        return value
    try:
        loopback = ipaddress.ip_address(value).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise typer.BadParameter(f"{value!r} is not a loopback address (expected localhost, 127.0.0.1, ::1 or "
                                 "another 127.x address: the viewer is local only)")
    return value


def existing(kind: str = "path") -> Callable[[Any], Any]:
    """A path that must exist: `dir` a folder, `file` a file, `path` either."""

    def check(value: Any) -> Any:
        for item in _each(value):
            path = Path(item)
            if not path.exists():
                raise typer.BadParameter(f"{str(item)!r} does not exist (expected an existing {'folder' if kind == 'dir' else kind})")
            if kind == "dir" and not path.is_dir():
                raise typer.BadParameter(f"{str(item)!r} is not a folder (expected an existing folder)")
            if kind == "file" and not path.is_file():
                raise typer.BadParameter(f"{str(item)!r} is not a file (expected an existing file)")
        return value

    return check


def writable_dir(value: Any) -> Any:
    """An output folder: absent (it is created) or a folder, never an existing file."""
    for item in _each(value):
        if Path(item).exists() and not Path(item).is_dir():
            raise typer.BadParameter(f"{str(item)!r} is a file (expected a folder to write into, or a new name)")
    return value


def writable_file(value: Any) -> Any:
    """An output file: absent or a file, never an existing folder."""
    for item in _each(value):
        if Path(item).is_dir():
            raise typer.BadParameter(f"{str(item)!r} is a folder (expected a file name)")
    return value


def harness_spec(value: Any) -> Any:
    """A harness: a search run folder (its selected harness), a harness file or a preset name; said
    apart by what exists, so a missing run folder is not reported as an unknown preset."""
    from harnessx.harness.presets import preset_names

    for item in _each(value):
        path = Path(item)
        if path.is_dir():
            if (path / "selected.yaml").is_file():
                continue
            why = ("a search run that has not finished (no selected.yaml; finish it with `harnessx search ... "
                   "--resume`)" if (path / "config.json").is_file() else "a folder but not a search run (no "
                   "selected.yaml)")
            raise typer.BadParameter(f"{item!r} is {why}")
        if path.is_file() or item in preset_names():
            continue
        if "/" in item or path.suffix in (".yaml", ".yml", ".json"):
            raise typer.BadParameter(f"no such run folder or harness file {item!r} (expected a search run "
                                     "folder, a harness file or a preset name)")
        raise typer.BadParameter(f"{item!r} is not a preset, a harness file or a run folder (presets: "
                                 f"{', '.join(preset_names())})")
    return value


def _executors() -> Iterable[str]:
    from harnessx.executors import EXECUTORS

    return EXECUTORS


def _sandboxes() -> Iterable[str]:
    from harnessx.envs.terminal.sandbox import NAMES

    return NAMES


def _user_modes() -> Iterable[str]:
    from harnessx.envs.retail.users import USER_MODES

    return USER_MODES


executor = one_of(_executors, "executor")
worker_executor = one_of(lambda: ("asyncio", "ray"), "worker executor")  # a queue worker is not a queue
sandbox = one_of(_sandboxes, "sandbox")
user_mode = one_of(_user_modes, "user mode")


def _store(check: Callable[[str], None]) -> Callable[[Any], Any]:
    """A store URL's form, dialect and driver (its server is asked later, by the command)."""

    def callback(value: Any) -> Any:
        if value is not None:
            try:
                check(value)
            except errors.InputError as exc:
                raise typer.BadParameter(f"{exc.problem}" + (f" (expected {exc.expected})" if exc.expected else "")
                                         ) from None
        return value

    return callback


def _storage(value: str) -> None:
    from harnessx.search.uris import check_database_url

    check_database_url("--storage", value)  # its server too: a closed port is refused here, not after imports


def _tracking(value: str) -> None:
    from harnessx.search.uris import check_tracking_uri

    check_tracking_uri(value, reach=False)


storage = _store(_storage)
tracking_uri = _store(_tracking)
