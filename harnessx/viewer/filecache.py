"""Parsed files kept while they are unchanged: a file is read and parsed again only when its size or
modification time moves (a search still writing is seen at once), so a page over a 3,000-rollout run
does not re-parse every score file on each request."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from harnessx.errors import InputError

T = TypeVar("T")
LIMIT = 256  # parsed files kept; the oldest goes first
_lock = threading.Lock()
_cache: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}


def cached_read(file: Path, parse: Callable[[str], T]) -> T:
    """`parse(text of file)`, reused while the file's (mtime, size) is the same; a file that does not
    parse is an InputError naming it (the viewer shows it as the page's error)."""
    stat = file.stat()
    stamp, slot = (stat.st_mtime_ns, stat.st_size), (str(file.resolve()), parse.__qualname__)
    with _lock:
        hit = _cache.get(slot)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        value = parse(file.read_text(encoding="utf-8"))
    except (ValueError, TypeError, AttributeError) as exc:  # a hand-edited or truncated file: named, not a traceback
        raise InputError(str(file), f"cannot be read ({exc.__class__.__name__}: {str(exc).splitlines()[0][:120]})",
                         "the JSON lines HarnessX wrote (restore the file, or re-run the command)") from None
    with _lock:
        _cache.pop(slot, None)
        _cache[slot] = (stamp, value)
        while len(_cache) > LIMIT:
            _cache.pop(next(iter(_cache)))
    return value
