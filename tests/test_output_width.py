"""Output at 80 columns through the CLI: `search`, `compare`, `tasks list`, `probe challenge` and
`feasigen eval`/`report` print no line over 80 characters, no `…`, no table row (or field of a
stacked block) over three lines, every task id whole, and no Python repr."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs import registry
from harnessx.envs.retail.suite import RetailSuite
from harnessx.formatting.fit import MAX_ROW_LINES, natural_width
from harnessx.formatting.table import Table
from tests.test_feasigen_cli import small_suite  # noqa: F401  (the fixture: a 12-task masked retail suite)
from tests.test_report_e2e import SplitToySuite, fabricate_run

WIDTH = 80
REPR = re.compile(r"\{'|\['|\(\['|\{\"")


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    return result.output


def row_heights(text: str) -> list[int]:
    """Lines per table row (a line with `│` whose first cell is filled starts a row; one whose first
    cell is blank continues it) and per field line of a stacked block (two spaces in; deeper-indented
    lines continue it)."""
    heights: list[int] = []
    kind = None
    for line in text.splitlines():
        if "│" in line and "┃" not in line:
            first = line.split("│")[1 if line.startswith("│") else 0]
            if first.strip() or kind != "row":
                heights.append(1)
            else:
                heights[-1] += 1
            kind = "row"
        elif re.match(r"  \S", line):
            heights.append(1)
            kind = "field"
        elif kind == "field" and re.match(r"   +\S", line):
            heights[-1] += 1
        else:
            kind = None
    return heights


def check(text: str) -> None:
    for line in text.splitlines():
        assert len(line.rstrip()) <= WIDTH, f"{len(line)} columns: {line!r}"
    assert "…" not in text
    assert not REPR.search(text), REPR.search(text)
    tall = [h for h in row_heights(text) if h > MAX_ROW_LINES]
    assert not tall, f"rows of {tall} lines"


def whole(token: str, text: str) -> bool:
    return re.search(rf"(^|[\s│]){re.escape(token)}($|[\s│,:;])", text, re.M) is not None


def test_tasks_list_prints_every_retail_id_whole():
    out = invoke("tasks", "list", "--env", "retail")
    check(out)
    ids = [t.id for t in RetailSuite().tasks()]
    assert max(map(len, ids)) > 25  # long enough that the old table cut them
    assert [i for i in ids if not whole(i, out)] == []


@pytest.fixture
def e2e_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(registry, "get_suite", lambda name, **options: SplitToySuite())
    (tmp_path / "mlruns").mkdir()
    fabricate_run(tmp_path / "runs" / "e2e", f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}")
    return tmp_path


@pytest.mark.slow
def test_compare_and_challenge_fit_80_columns(e2e_run):
    out = invoke("compare", "runs/e2e", "--split", "heldout", "--epochs", "2", "--resamples", "200")
    check(out)
    assert "Transfer" in out and whole("e2e:selected", out) and whole("e2e:R0", out)
    assert "compare: done" in out  # the progress display, as plain lines off a terminal
    out = invoke("probe", "challenge", "runs/e2e", "--replicates", "3")
    check(out)
    assert whole("e2e:selected", out) and "P(+|+): " in out and "challenge: done" in out


def test_search_fits_80_columns_and_reports_rounds_with_eta(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = invoke("search", "--env", "toy", "--rounds", "2", "--proposals", "2", "--no-mlflow", "--name", "s",
                 "--certify-split", "none")
    check(out)
    for round_no in (0, 1, 2):
        assert re.search(rf"^search: round {round_no} started, \d+/\d+ rollouts, ETA [\d:?]+, cost \$", out, re.M)
    assert re.search(r"^search: done: round 2, (\d+)/\1 rollouts", out, re.M)


def test_feasigen_eval_and_report_fit_80_columns(small_suite, tmp_path):  # noqa: F811
    out = invoke("feasigen", "eval", "--suite", str(small_suite), "--system", "sim/baseline", "--system", "sim/ideal",
                 "--pair", "sim/ideal->sim/baseline", "--split", "search", "--out", str(tmp_path / "eval"))
    check(out)
    assert whole("sim/ideal", out) and "SR on Task_original" in out
    check(invoke("feasigen", "report", str(tmp_path / "eval")))


def render(table: Table, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, no_color=True)
    console.print(table.rich())
    return console.file.getvalue()


def test_a_table_that_fits_is_boxed_one_that_does_not_is_stacked_and_never_cut():
    table = Table("flips", ["task", "seed", "note"], [["retail-013-modify_address-unavailable", "0", "x " * 12],
                                                      ["retail-001-cancel", "1", "short"]], ["a note"])
    full = natural_width(table.headers, table.rows)
    boxed = render(table, full)
    assert boxed.splitlines()[1].startswith("┏") and max(len(line) for line in boxed.splitlines()) == full
    narrower = render(table, full - 4)  # the note column wraps at spaces; the box keeps its borders
    assert boxed_intact(narrower, full - 4) and "│ retail-013-modify_address-unavailable │ 0    │" in narrower
    stacked = render(table, 40)
    assert "retail-013-modify_address-unavailable\n  seed: 0" in stacked and "…" not in stacked
    assert "note: x x x" in stacked and stacked.rstrip().endswith("a note")
    check(stacked)


BOX_TOP, BOX_BOTTOM = "┏", "└"


def boxed_intact(text: str, width: int) -> bool:
    """A boxed table whose every box line starts and ends on a border, all of one width <= `width`."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(BOX_TOP))
    bottom = next(i for i, line in enumerate(lines) if line.startswith(BOX_BOTTOM))
    box = [line.rstrip() for line in lines[top:bottom + 1]]
    return (len({len(line) for line in box}) == 1 and len(box[0]) <= width
            and all(line[0] in "┏┃┡│└" and line[-1] in "┓┃┩│┘" for line in box))


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_:/.%", min_size=1, max_size=30)
CELL = st.lists(WORD, min_size=0, max_size=12).map(" ".join)


KEY = st.lists(WORD, min_size=1, max_size=3).map(" ".join)  # a row's first cell: its id, never blank


def row_of(n: int):
    return st.tuples(KEY, st.lists(CELL, min_size=n - 1, max_size=n - 1)).map(lambda r: [r[0], *r[1]])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.lists(WORD, min_size=n, max_size=n),
                                                    st.lists(row_of(n), max_size=6))))
def test_any_table_at_80_columns_is_boxed_with_its_borders_or_stacked_never_cut(table_data):
    """The class: tables of any shape (1-6 columns, words up to 30 characters, cells up to 12 words)
    printed at 80 columns are a box whose borders are intact or stacked blocks; no line over 80, no
    word broken or shortened, no cell over three lines."""
    headers, rows = table_data
    text = render(Table("t", headers, rows), WIDTH)
    check(text)
    words = {w for row in rows for cell in row for w in cell.split()}
    if any(line.startswith(BOX_TOP) for line in text.splitlines()):
        assert boxed_intact(text, WIDTH), text
        words |= set(headers)
    else:
        assert not any(c in text for c in "│┃"), text  # never a box without its border
    tokens = set(text.replace("│", " ").replace("┃", " ").split())
    assert words <= tokens | {f"{h}:" for h in headers}, sorted(words - tokens)
