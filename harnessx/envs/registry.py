"""Environment suites by name. Imports are lazy so a missing optional part fails only when used."""

from __future__ import annotations

import importlib
from typing import Any

from harnessx.envs.base import Suite
from harnessx.errors import InputError

DEFAULT_ENV = "retail"  # the built-in suite used when no --env is given
SUITES = {
    "toy": "harnessx.envs.toy:ToySuite",
    "retail": "harnessx.envs.retail.suite:RetailSuite",
    "terminal": "harnessx.envs.terminal.suite:TerminalSuite",
    "kapro": "harnessx.kapro.suite:KaproSuite",  # KAPRO knowing vs acting (built-in or --kaware-dir)
    "bfcl": "harnessx.envs.bfcl.suite:BfclSuite",  # needs: pip install --no-deps bfcl-eval==2026.3.23 mpmath
    "cf": "harnessx.cf.env:CFSuite",                 # Confident Fools, with the web_search tool
    "cf-nosearch": "harnessx.cf.env:NoSearchSuite",  # Confident Fools, without a tool
    "feasigen": "harnessx.feasigen.suite:FeasiGenSuite",  # a built FeasiGen suite: --tasks-dir DIR
    "starter": "harnessx.envs.starter:StarterSuite",  # short paired tasks for small local models
}


def get_suite(name: str, **options: Any) -> Suite:
    if name not in SUITES:
        raise InputError("--env", f"unknown environment {name!r}", f"one of {sorted(SUITES)}")
    module_name, attr = SUITES[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("harnessx.envs"):
            raise InputError("--env", f"environment {name!r} has not landed yet") from None
        raise
    return getattr(module, attr)(**options)
