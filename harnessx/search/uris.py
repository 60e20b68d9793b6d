"""Check the Optuna storage and MLflow tracking URIs before a search creates anything.

A URI that cannot work (an unknown scheme, a database driver that is not installed, an unparseable
string) is one error naming the option, so the run directory is never left half-created and a
corrected retry is not refused.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from harnessx.errors import InputError
from harnessx.extras import missing_extra

# MLflow: a database store (SQLAlchemy URL) or a tracking server; the file store is refused by MLflow.
DEFAULT_MLFLOW_URI = "sqlite:///mlruns/mlflow.db"  # the MLflow store of a search unless --tracking-uri names another
MLFLOW_SERVER_SCHEMES = ("http", "https", "databricks")


SQLITE = re.compile(r"sqlite(\+\w+)?://(/.*)?")  # sqlite:// (in memory) or sqlite:///<path>


def check_database_url(option: str, url: str, reach: bool = True) -> None:
    """`url` must be a SQLAlchemy URL whose dialect and driver load (what Optuna's RDB storage uses);
    with `reach`, its server must answer. Without it (the command line's own check), a SQLite URL is
    checked by its form alone, without loading SQLAlchemy."""
    if not reach and url.split(":", 1)[0].startswith("sqlite"):
        if not SQLITE.fullmatch(url):
            raise InputError(option, f"{url!r} is not a SQLite URL", "sqlite:///<path> or sqlite://")
        return
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        dialect = make_url(url).get_dialect()
        dialect.import_dbapi()  # the driver itself (psycopg for postgresql://), not only SQLAlchemy's dialect
    except ArgumentError:
        raise InputError(option, f"{url!r} is not a database URL",
                         "e.g. sqlite:///optuna.db or postgresql://user@host/db") from None
    except NoSuchModuleError:
        scheme = url.split(":", 1)[0]
        raise InputError(option, f"{url!r}: no database dialect {scheme!r}",
                         "a SQLAlchemy URL such as sqlite:///optuna.db or postgresql://user@host/db") from None
    except ImportError as exc:
        raise missing_extra(option, exc.name or "its database driver", f"{url.split(':', 1)[0]}:// URL") from None
    if reach:
        check_reachable(option, url)


def check_reachable(option: str, url: str, timeout_s: int = 5) -> None:
    """A database server must answer before anything is created (a closed port otherwise fails after the
    run directory exists, or MLflow retries it for minutes). SQLite files are created on demand."""
    import sqlalchemy
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return
    args = {"connect_timeout": timeout_s} if parsed.get_backend_name() in ("postgresql", "mysql") else {}
    engine = sqlalchemy.create_engine(url, poolclass=NullPool, connect_args=args)
    try:
        with engine.connect():
            pass
    except sqlalchemy.exc.DBAPIError as exc:
        reason = " ".join(str(exc.orig).split())[:200]
        raise InputError(option, f"cannot connect to the database at {parsed.render_as_string(hide_password=True)} "
                         f"({reason})", "a running database server at that address") from None
    finally:
        engine.dispose()


def check_storage(storage: str | None) -> None:
    """--storage: empty (the run's journal file) or an Optuna RDB URL."""
    if storage:
        check_database_url("--storage", storage)


def check_tracking_uri(uri: str | None, option: str = "--tracking-uri", reach: bool = True) -> None:
    """--tracking-uri: None (no MLflow), a database URL, or an MLflow tracking server."""
    if not uri:
        return
    scheme = urlparse(uri).scheme
    if scheme in MLFLOW_SERVER_SCHEMES:
        if not urlparse(uri).netloc and scheme != "databricks":
            raise InputError(option, f"{uri!r} has no host", "http(s)://host[:port]")
        return
    if scheme in ("", "file"):
        raise InputError(option, f"{uri!r} is a file store, which MLflow no longer supports",
                         "a database store such as sqlite:///mlruns/mlflow.db, or a tracking server URL")
    check_database_url(option, uri, reach)


def check_stores(storage: str | None, tracking_uri: str | None) -> None:
    check_storage(storage)
    check_tracking_uri(tracking_uri)


def absolute_uri(uri: str | None) -> str | None:
    """A SQLite URI with a relative path made absolute (against the working directory), so the run's
    record names the same store from any folder (`harnessx report`, `mlflow ui`); others unchanged."""
    if not uri or not uri.startswith("sqlite:///") or uri.startswith("sqlite:////"):
        return uri
    from pathlib import Path

    return "sqlite:///" + str(Path(uri.removeprefix("sqlite:///")).resolve())
