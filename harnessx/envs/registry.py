"""Environment suites by name. Imports are lazy so a missing optional part fails only when used.

`SUITES` holds the environments' own suites; a benchmark's suites (e.g. a suite whose tasks another
benchmark scores) come from the benchmark registry, which a lower layer reaches through `importlib`
(a plug-in table, not an import up the layers)."""

from __future__ import annotations

import importlib
from typing import Any

from harnessx.envs.base import Suite
from harnessx.errors import InputError, one_of

DEFAULT_ENV = "retail"  # the built-in suite used when no --env is given
SUITES = {
    "toy": "harnessx.envs.toy:ToySuite",
    "retail": "harnessx.envs.retail.suite:RetailSuite",
    "terminal": "harnessx.envs.terminal.suite:TerminalSuite",
    "bfcl": "harnessx.envs.bfcl.suite:BfclSuite",  # needs: pip install --no-deps bfcl-eval==2026.3.23 mpmath
    "starter": "harnessx.envs.starter:StarterSuite",  # short paired tasks for small local models
}


BENCHMARK_REGISTRY = "harnessx.benchmarks.registry"


def all_suites() -> dict[str, str]:
    """Every suite: the environments' and the benchmarks' (suite name -> "module:Class")."""
    provided = importlib.import_module(BENCHMARK_REGISTRY).suites()
    if clash := sorted(set(provided) & set(SUITES)):
        raise TypeError(f"suite names {clash} are both an environment's and a benchmark's")
    return {**SUITES, **{name: target for name, (_, target) in provided.items()}}


def get_suite(name: str, **options: Any) -> Suite:
    known = all_suites()
    if name not in known:
        raise InputError("--env", f"unknown environment {name!r}", one_of(sorted(known)))
    module_name, attr = known[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("harnessx.envs"):
            raise InputError("--env", f"environment {name!r} has not landed yet") from None
        raise
    return getattr(module, attr)(**options)
