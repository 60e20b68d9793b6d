"""Named harness presets (data in `presets/*.yaml`): the paper's A0, A1, B, C, D and more."""

from __future__ import annotations

from pathlib import Path

from harnessx.errors import InputError, one_of
from harnessx.harness.model import Harness

PRESET_DIR = Path(__file__).parent / "presets"


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def load_preset(name: str) -> Harness:
    path = PRESET_DIR / f"{name}.yaml"
    if not path.is_file():
        raise InputError("--preset", f"unknown preset {name!r}", one_of(preset_names()))
    return Harness.load(path)


def resolve_harness(spec: str) -> Harness:
    """A harness file path or a preset name."""
    if spec.endswith((".yaml", ".yml", ".json")) or Path(spec).is_file():
        return Harness.load(spec)
    return load_preset(spec)
