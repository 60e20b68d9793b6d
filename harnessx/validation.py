"""Load YAML/JSON files into pydantic models with errors that name the file and the field."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from harnessx import io_read
from harnessx.errors import InputError

M = TypeVar("M", bound=BaseModel)


def read_mapping(path: str | Path) -> dict:
    """Read a YAML or JSON file that must hold a mapping."""
    return io_read.read_mapping(path, "a mapping (YAML or JSON)")


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
