"""Harness model, presets and rendering."""

from harnessx.harness.model import COMPONENTS, Harness, Switches, diff
from harnessx.harness.presets import load_preset, preset_names, resolve_harness

__all__ = ["COMPONENTS", "Harness", "Switches", "diff", "load_preset", "preset_names", "resolve_harness"]
