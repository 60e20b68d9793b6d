"""How much the libraries under harnessx may log to stderr.

MLflow, alembic, Optuna, LiteLLM and httpx log INFO lines (database migrations, trials, requests)
that drown a command's own output. By default only their warnings and errors reach stderr;
`harnessx --verbose` or `HARNESSX_LOG=info` (or `debug`) brings the rest back. The CLI calls
`configure_logs` before a command runs; a module that sets a library's level uses `library_level`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import MutableMapping

from harnessx.errors import InputError, one_of

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
ENV = "HARNESSX_LOG"


def log_level(verbose: bool, environ: MutableMapping[str, str] = os.environ) -> int:
    """The level the libraries log at: `--verbose` is info; else HARNESSX_LOG; else warning."""
    if verbose:
        return logging.INFO
    name = environ.get(ENV, "warning").strip().lower()
    if name not in LEVELS:
        raise InputError(ENV, f"unknown log level {name!r}", one_of(LEVELS))
    return LEVELS[name]


def library_level(environ: MutableMapping[str, str] = os.environ) -> int:
    """The level for a library's logger: HARNESSX_LOG's when it is valid, else warning."""
    return LEVELS.get(environ.get(ENV, "").strip().lower(), logging.WARNING)


def configure_logs(verbose: bool = False, environ: MutableMapping[str, str] = os.environ) -> int:
    """Apply the level before any library is imported, and to those already imported.

    Below warning nothing changes. At warning or above, every record under that level is dropped
    (`logging.disable`), whichever logger and handler a library set up at its import, and MLflow
    and LiteLLM read the level from their own environment variables when they are imported."""
    level = log_level(verbose, environ)
    name = logging.getLevelName(level)
    environ[ENV] = name.lower()  # for `library_level`, and for the processes a command starts
    environ.setdefault("MLFLOW_LOGGING_LEVEL", name)
    environ.setdefault("LITELLM_LOG", name)
    logging.disable(level - 1 if level > logging.INFO else logging.NOTSET)
    return level
