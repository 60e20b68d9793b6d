"""`harnessx gc`: remove the shared rollout cache's entries that no folder of the runs folder uses."""

from __future__ import annotations

from pathlib import Path

import typer

from harnessx.cli import checks
from harnessx.cli.common import console, friendly_errors
from harnessx.errors import InputError

IN_USE = "no search, compare, eval, probe or plan running on it; run gc when they finish"


@friendly_errors
def gc_cmd(runs: str = typer.Argument("runs", callback=checks.existing("dir"),
                                      help="The runs folder whose cache/ to clean."),
           dry_run: bool = typer.Option(False, "--dry-run", help="List what would be removed (files, bytes); "
                                        "remove nothing.")) -> None:
    """Remove rollouts in the runs folder's cache that no run, compare or eval folder uses.

    A rollout is stored once: in runs/cache/ and as a hard link in each folder that used it. After a
    run folder is deleted its rollouts stay in the cache; gc removes every cache entry whose key no
    file under the runs folder (outside cache/) carries, and leftover .tmp files. A later command that
    needs a removed rollout runs it again (a plan --pilot's rollouts that no run used among them).
    Refused while a command uses the runs folder; never follows a symbolic link. Prints the runs
    folder's disk use before and after."""
    from harnessx.agent.cache_gc import disk_use, find_garbage, remove
    from harnessx.agent.shared_cache import RootHold, RunsRootBusy

    root = Path(runs).resolve()
    try:
        hold = RootHold(root, exclusive=True)
    except RunsRootBusy as busy:
        who = f" (process {', '.join(map(str, busy.pids))})" if busy.pids else ""
        raise InputError(runs, f"in use by a running harnessx command{who}", IN_USE) from None
    with hold:
        before = disk_use(root)
        console.print(f"{runs}: {before.line()} before", highlight=False, markup=False, soft_wrap=True)
        try:
            garbage = find_garbage(root)
        except ValueError as exc:
            raise InputError(runs, str(exc), "a cache/ folder inside the runs folder") from None
        for skipped in garbage.skipped:
            console.print(f"left alone: {runs}/{skipped} (a symbolic link)", highlight=False, markup=False,
                          soft_wrap=True)
        if dry_run:
            for sub, name, size in garbage.files:
                console.print(f"would remove {runs}/cache/{sub}/{name}  ({size:,} bytes freed)", highlight=False,
                              markup=False, soft_wrap=True)
        what = (f"{garbage.entries:,} cache entries no folder uses: {len(garbage.files):,} files, "
                f"{garbage.bytes / 1e6:.1f} MB freed; {garbage.kept:,} entries in use kept")
        if dry_run:
            console.print(f"would remove {what} (--dry-run: nothing removed)", highlight=False, soft_wrap=True)
            return
        remove(root, garbage)
        console.print(f"removed {what}", highlight=False, soft_wrap=True)
        console.print(f"{runs}: {disk_use(root).line()} after", highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("gc")(gc_cmd)
