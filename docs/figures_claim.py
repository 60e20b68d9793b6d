"""The transcripts of the certified-claim page (docs/certified-claim.md), each the real output of the
command it quotes, cut to the lines the page discusses: the plan with a pilot, the `paired` search
and its claim, the export, the compare of the claim's rollouts, and a `greedy` move that is no claim.
`w` is docs/figures.py's Workdir; the commands run there in order (the search reuses the pilot's
rollouts from the shared cache, as the page says).
"""

from __future__ import annotations

import re

PLAN = ("plan", "--env", "retail", "--accept", "paired", "--pilot", "--effect", "0.1")
SEARCH = ("search", "--env", "retail", "--accept", "paired", "--proposer", "rules", "--no-mlflow", "--name",
          "retail-paired")
EXPORT = ("export", "runs/retail-paired", "--out", "harness.yaml")
COMPARE = ("compare", "runs/retail-paired", "--split", "heldout")
GREEDY = ("search", "--env", "starter", "--rounds", "2", "--proposals", "3", "--accept", "greedy", "--no-mlflow",
          "--name", "demo")
PROGRESS = re.compile(r"^search: (round \d+|done)")
MACHINE = [(re.compile(r"wall \d+(\.\d+)?s"), "wall [time]"),  # what differs between machines and runs
           (re.compile(r"\d+(\.\d+)? ([KMG]i?B|bytes)"), "[size]")]


def _lines(out: str) -> list[str]:
    lines = [line.rstrip() for line in out.splitlines() if not PROGRESS.match(line)]
    for pattern, stand_in in MACHINE:
        lines = [pattern.sub(stand_in, line) for line in lines]
    return lines


def _from(lines: list[str], start: str) -> list[str]:
    at = next(i for i, line in enumerate(lines) if line.startswith(start))
    return lines[at:]


def _block(command: tuple[str, ...], lines: list[str]) -> str:
    return "```\n$ harnessx " + " ".join(command) + "\n" + "\n".join(lines) + "\n```"


_HERE: dict = {}


def _work(w):
    """The page's own folder under the figures' scratch directory (its `demo` run is not the README's)."""
    return _HERE.setdefault(w.path, w.alone("certified-claim"))


def _sequence(w) -> dict[str, str]:
    """Every command of the page, once, in the page's order (the search reads the pilot's cache)."""
    here = _work(w)
    return {name: here.run(*cmd) for name, cmd in (("plan", PLAN), ("search", SEARCH), ("export", EXPORT),
                                                    ("compare", COMPARE))}


def claim_plan(w) -> str:
    return _block(PLAN, _lines(_sequence(w)["plan"]))


def claim_search(w) -> str:
    lines = _lines(_sequence(w)["search"])
    end = next(i for i, line in enumerate(lines) if line.startswith(("round ", "certifying the claim")))
    return _block(SEARCH, lines[:end] + ["..."] + _from(lines, "certifying the claim"))


def claim_export(w) -> str:
    return _block(EXPORT, _lines(_sequence(w)["export"]))


def claim_compare(w) -> str:
    lines = _lines(_sequence(w)["compare"])
    table = _from(lines, "heldout split: paired differences")
    end = next(i for i, line in enumerate(table) if "bootstrap resamples" in line)
    wrote = _from(lines, "wrote ")
    wrote = wrote[:next((i for i, line in enumerate(wrote) if not line.strip()), len(wrote))]
    return _block(COMPARE, ["..."] + table[:end + 2] + ["..."] + wrote)


def claim_greedy(w) -> str:
    lines = _lines(_work(w).run(*GREEDY))
    return _block(GREEDY, ["..."] + _from(lines, "incumbent joint by round")[:-2])
