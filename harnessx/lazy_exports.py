"""A package's names imported from their modules on first use (PEP 562), so a light reader of one
name does not pay for its siblings (`harnessx.scoring`'s LLM judge and model client, `harnessx.stats`'s
scipy)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """The package's module-level `__getattr__`: name -> the attribute of `package.<where[name]>`."""

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
