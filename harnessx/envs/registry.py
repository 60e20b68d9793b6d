"""Environment suites by name: the seam through which `--env` finds a suite.

An environment is registered in the entry-point group `harnessx.environments` (`NAME = "module:Class"`,
HarnessX's own in its pyproject.toml, a user's in their package's) or named by an import path
(`--env package.module:Class`); see harnessx/plugins.py. Listing imports nothing.

A benchmark's suites (e.g. a suite whose tasks another benchmark scores) come from the benchmark
registry, which a lower layer reaches through `importlib` (a plug-in table, not an import up the
layers); they are looked at only for a name no environment has.
"""

from __future__ import annotations

import importlib
from typing import Any

from harnessx.envs.base import Suite
from harnessx.errors import InputError, one_of
from harnessx.plugins import Registry, import_target, is_import_path, summary

DEFAULT_ENV = "retail"  # the built-in suite used when no --env is given
GROUP = "harnessx.environments"


def _is_suite_class(obj: object) -> bool:
    return isinstance(obj, type) and callable(getattr(obj, "tasks", None)) and callable(getattr(obj, "make_env", None))


ENVIRONMENTS = Registry(GROUP, "--env", "environment", "a suite class with tasks(split) and make_env() "
                        "(harnessx.envs.base.Suite)", _is_suite_class)


class _Suites:
    """`SUITES`: the registered environments' names (iterable, testable with `in`; nothing imported)."""

    def __iter__(self):
        return iter(ENVIRONMENTS.names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in ENVIRONMENTS.names()

    def __len__(self) -> int:
        return len(ENVIRONMENTS.names())


SUITES = _Suites()
BENCHMARK_REGISTRY = "harnessx.benchmarks.registry"


def benchmark_suites() -> dict[str, str]:
    """The benchmarks' suites: suite name -> "module:Class" (imports the benchmarks)."""
    provided = importlib.import_module(BENCHMARK_REGISTRY).suites()
    if clash := sorted(set(provided) & set(SUITES)):
        raise TypeError(f"suite names {clash} are both an environment's and a benchmark's")
    return {name: target for name, (_, target) in provided.items()}


def all_suites() -> dict[str, str]:
    """Every suite by name: the environments' entry points and the benchmarks' suites."""
    from harnessx.plugins import entries

    return {**{name: found[0].target for name, found in entries(GROUP).items()}, **benchmark_suites()}


def suite_class(name: str) -> type:
    """The suite class `--env NAME` names: an environment, a benchmark's suite or an import path."""
    if is_import_path(name) or name in SUITES:
        return ENVIRONMENTS.load(name)  # type: ignore[return-value]
    provided = benchmark_suites()
    if name not in provided:
        raise InputError("--env", f"unknown environment {name!r}", f"{one_of([*SUITES, *provided])}, "
                         "or an import path package.module:Class")
    try:
        return import_target(provided[name])  # type: ignore[return-value]
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("harnessx."):
            raise InputError("--env", f"suite {name!r} ({provided[name]}) does not import: {summary(exc)}") from None
        raise


def get_suite(name: str, **options: Any) -> Suite:
    return suite_class(name)(**options)
