"""Stored files are checked against what was written, when they are read.

A file harnessx writes and later believes carries its own check: a harness file its `hash:` (the
hash of its components and switches), `summary.json` a `sha256` of its content, and a search run
its checkpoint's `done` (reset when a resume starts, set when the search finishes). A file whose
check fails is one error naming it and how to recover, never a number read from it. These checks
catch accidental and careless edits; anyone who recomputes the digest after editing passes them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from harnessx.errors import InputError

SEAL = "sha256"  # the key of a sealed JSON file's digest
RESUME = "re-run `harnessx search --resume` with the run's options (finished rollouts come from the cache)"


def digest(data: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of `data` without its seal."""
    body = {k: v for k, v in data.items() if k != SEAL}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


def seal(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the digest of its JSON form (as it will read back) under `sha256`."""
    plain = json.loads(json.dumps(data, default=str))
    return {**plain, SEAL: digest(plain)}


def check_seal(data: Any, path: str | Path, recover: str) -> Any:
    """`data` read from `path`, unchanged since it was sealed; a file without a seal passes."""
    if isinstance(data, dict) and SEAL in data and data[SEAL] != digest(data):
        raise InputError(str(path), f"edited after harnessx wrote it (its content does not match the recorded "
                         f"{SEAL} {str(data[SEAL])[:16]}…)", f"the file as written: restore it, or {recover}")
    return data


def check_harness_hash(data: dict[str, Any], actual: str, path: str | Path) -> None:
    """A harness file's `hash:` line must be the hash of the content beside it."""
    stored = data.get("hash")
    if stored is not None and stored != actual:
        raise InputError(str(path), f"field 'hash' = {str(stored)[:20]!r} but the content hashes to {actual!r} "
                         "(edited after it was written)", "the file as written: restore it, or delete its hash: "
                         "line to load the edited content as a new harness")


def check_finished(run_dir: str | Path) -> None:
    """A search run whose selection can be believed: its checkpoint says done (a resume resets it)."""
    path = Path(run_dir) / "checkpoint.json"
    if not path.is_file():
        return  # a run written before checkpoints, or by hand: nothing to contradict selected.yaml
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # a corrupt checkpoint is the resume's error to name, not the reader's
    if isinstance(state, dict) and state.get("done") is False:  # set when a resume starts, True when it ends
        raise InputError(str(path), "the search is not finished ('done' is false: a --resume started and did not "
                         "finish, so selected.yaml and summary.json are an earlier finish's)", f"to {RESUME}")
