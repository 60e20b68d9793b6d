"""Load YAML/JSON files into pydantic models with errors that name the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from harnessx.errors import InputError

M = TypeVar("M", bound=BaseModel)


def read_mapping(path: str | Path) -> dict:
    """Read a YAML or JSON file that must hold a mapping."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "file not found")
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise InputError(str(path), f"cannot parse: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(str(path), f"top level is {type(data).__name__}", "a mapping")
    return data


def validate(model: type[M], data: dict, source: str) -> M:
    """Validate `data` against `model`; the first error names the field, value and expectation."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(top level)"
        value = err.get("input")
        shown = repr(value)[:80] if not isinstance(value, dict) else "{...}"
        extra = f" (+{len(exc.errors()) - 1} more errors)" if len(exc.errors()) > 1 else ""
        raise InputError(source, f"field '{field}' = {shown}: {err['msg']}{extra}") from None


def load_file(model: type[M], path: str | Path) -> M:
    return validate(model, read_mapping(path), str(path))
