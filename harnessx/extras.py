"""Optional extras: a feature whose package is not installed is one error naming the extra to install.

Checked before a command creates anything (a run directory, an output file), so the corrected retry
is never refused by a leftover.
"""

from __future__ import annotations

import importlib

from harnessx.errors import InputError

# module -> the extra of pyproject.toml that installs it
EXTRAS = {"psycopg": "postgres", "ray": "ray", "llama_cpp": "local", "optuna_dashboard": "dashboard"}


def missing_extra(option: str, module: str, what: str) -> InputError:
    """The error for `what` (used by `option`) needing `module`, which is not installed."""
    extra = EXTRAS.get(module.split(".")[0])
    fix = f"pip install 'harnessx[{extra}]'" if extra else f"the {module!r} package installed"
    return InputError(option, f"{what} needs the {module!r} package, which is not installed", fix)


def require_extra(option: str, module: str, what: str) -> None:
    """Import `module` or raise the one-line error naming the extra that installs it."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise missing_extra(option, module, what) from None
