"""Named harness presets (data in `presets/*.yaml`): the paper's A0, A1, B, C, D and more."""

from __future__ import annotations

from pathlib import Path

from harnessx.errors import InputError, one_of
from harnessx.harness.model import Harness

PRESET_DIR = Path(__file__).parent / "presets"


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def load_preset(name: str, flag: str = "--preset") -> Harness:
    """The preset `name`; an unknown name is bad input of `flag`, the option the user gave it to."""
    path = PRESET_DIR / f"{name}.yaml"
    if not path.is_file():
        expected = one_of(preset_names()) if flag == "--preset" else f"a harness file or {one_of(preset_names())}"
        raise InputError(flag, f"unknown preset {name!r}", expected)
    return Harness.load(path)


def resolve_harness(spec: str, flag: str = "--harness") -> Harness:
    """A harness file path or a preset name (given to the option `flag`)."""
    if spec.endswith((".yaml", ".yml", ".json")) or Path(spec).is_file():
        return Harness.load(spec)
    return load_preset(spec, flag)
