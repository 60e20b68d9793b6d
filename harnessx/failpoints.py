"""Failpoints: named places in the product's writes where a fault test can kill the process for real.

A no-op unless the environment variable `HARNESSX_FAILPOINT=<site>:<n>` is set; then the n-th time
this process reaches `<site>` it first makes the torn partial write a kill there could leave (when
the call site gives one) and then sends itself SIGKILL: nothing is flushed, no handler runs, no
`finally` block executes, exactly as with `kill -9`. tests/faults/test_kill9.py drives it.

Sites (each named where it is hit):
  rollout.run        harnessx.agent.runner  an uncached rollout is about to start (others in flight)
  rollout.put        harnessx.agent.runner  its trajectory is written, its result file not yet
  ledger.append      harnessx.search.rundir half of the round's ledger rows written (a torn line)
  write:<file>       harnessx.search.rundir an atomic write: part of the temporary file, never renamed
                                            (`write:checkpoint.json` is the checkpoint)
  optuna.add         harnessx.search.tracking a trial is in the Optuna journal, not yet in the ledger
  mlflow.parent      harnessx.search.tracking the parent run is created, its id not yet on disk
  mlflow.candidate   harnessx.search.tracking a candidate's run is created with its metrics, not closed
  mlflow.finish      harnessx.search.tracking the parent's artifacts are logged, the run not closed
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

from harnessx.errors import InputError

ENV = "HARNESSX_FAILPOINT"
SITES = ("rollout.run", "rollout.put", "ledger.append", "optuna.add", "mlflow.parent", "mlflow.candidate",
         "mlflow.finish")  # and write:<file>
_hits: dict[str, int] = {}
_pid = 0


def armed() -> tuple[str, int] | None:
    """The site and hit number this process is armed with, or None. A malformed value is an error
    (a fault test that silently injects nothing would pass for the wrong reason)."""
    spec = os.environ.get(ENV)
    if not spec:
        return None
    site, _, n = spec.rpartition(":")
    known = site in SITES or (site.startswith("write:") and len(site) > len("write:"))
    if not site or not n.isdigit() or int(n) < 1 or not known:
        raise InputError(ENV, f"{spec!r} is not <site>:<n>" + ("" if known or not site else f" (no site {site!r})"),
                         f"a site of {', '.join(SITES)} or write:<file>, and a hit number n >= 1, e.g. "
                         "ledger.append:2; or unset it")
    return site, int(n)


def hit(site: str, torn: Callable[[], object] | None = None) -> None:
    """Count one pass through `site`; at the armed hit, run `torn` (the partial write) and SIGKILL."""
    global _pid
    target = armed()
    if target is None or target[0] != site:
        return
    if _pid != os.getpid():  # a forked child counts its own hits
        _hits.clear()
        _pid = os.getpid()
    _hits[site] = _hits.get(site, 0) + 1
    if _hits[site] == target[1]:
        if torn is not None:
            torn()
        os.kill(os.getpid(), signal.SIGKILL)
