"""The public protocols are exported from `harnessx` itself, lazily: every name in `harnessx.__all__`
resolves to the object of the module it names, and `import harnessx` alone loads none of the heavy
libraries and none of its own modules (every `harnessx` command imports the package first)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import harnessx

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("litellm", "mlflow", "optuna", "dspy", "gepa", "pandas", "matplotlib", "ray")
SEAMS = ("Benchmark", "Environment", "Suite", "AcceptanceRule", "Proposer", "Executor", "register_provider",
         "Harness", "Task", "Trajectory", "SearchConfig", "Search")


def test_every_exported_name_resolves_to_its_module_attribute_and_no_other_name_does():
    assert set(SEAMS) <= set(harnessx.__all__)
    for name in harnessx.__all__:
        module_name, attr = harnessx._EXPORTS[name].split(":")
        assert getattr(harnessx, name) is getattr(importlib.import_module(module_name), attr), name
    assert set(harnessx.__all__) <= set(dir(harnessx))
    with pytest.raises(AttributeError, match="NoSuchSeam"):
        harnessx.NoSuchSeam  # noqa: B018


def test_import_harnessx_loads_no_heavy_module_and_none_of_its_own():
    probe = ("import json, sys; import harnessx; "
             f"print(json.dumps(sorted(m for m in sys.modules if m in {HEAVY!r} or m.startswith('harnessx.'))))")
    out = subprocess.run([sys.executable, "-c", probe], check=False, cwd=REPO, capture_output=True, text=True,
                         env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.splitlines()[-1]) == []
