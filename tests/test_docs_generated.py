"""The docs cannot drift from the code: every command table is the CLI's own command list, and the
run-folder listing is what a toy search writes, each entry described (docs/figures_code.py). When
either differs, regenerate with `python docs/figures.py commands run-folder`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))

import figures_code  # noqa: E402


def blocks(name: str) -> dict[str, str]:
    """The text of every `<!-- figure:NAME -->` block in the README and the docs, by file."""
    import re

    pattern = re.compile(rf"<!-- figure:{name} -->(.*?)<!-- /figure:{name} -->", re.S)
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return {p.relative_to(ROOT).as_posix(): m.group(1) for p in files
            for m in pattern.finditer(p.read_text(encoding="utf-8"))}


def test_every_command_table_lists_exactly_the_clis_commands():
    found = blocks("commands")
    assert {"README.md", "docs/index.md"} <= set(found)
    want = f"\n{figures_code.commands(None)}\n"
    assert {where: text for where, text in found.items() if text != want} == {}, \
        "run `python docs/figures.py commands`"
    from harnessx.cli.main import COMMANDS

    usages = [usage.split()[1] for usage, _ in figures_code.command_rows()]
    assert usages == list(COMMANDS) and {"diff", "worker"} <= set(usages)


def test_the_run_folder_listing_is_what_a_toy_search_writes(tmp_path, monkeypatch):
    from harnessx.cli.main import app

    monkeypatch.chdir(tmp_path)
    args = [a.replace("<name>", "toy") for a in figures_code.TOY_SEARCH]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    found = figures_code.listing(tmp_path, "toy")
    assert {"runs/<name>/claim.json", "runs/<name>/mlflow.json", "runs/<name>/scores/", "runs/cache/"} <= set(found)
    documented = blocks("run-folder")
    assert "docs/search.md" in documented
    want = f"\n{figures_code.render_listing(found)}\n"
    assert {where: text for where, text in documented.items() if text != want} == {}, \
        "run `python docs/figures.py run-folder`"


def test_an_entry_nobody_described_fails_the_listing():
    with pytest.raises(SystemExit, match=r"runs/<name>/new\.json.*RUN_FOLDER"):
        figures_code.render_listing(["runs/", "runs/<name>/", "runs/<name>/new.json"])
