"""docs/figures.py: the marked figure blocks of the README and the docs are regenerated from their commands, and
`--check` fails when a deterministic block no longer matches (timing blocks are never compared)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "figures.py"


@pytest.fixture(scope="module")
def figures():
    spec = importlib.util.spec_from_file_location("harnessx_docs_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve the module's annotations through it
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.fixture()
def fake(figures, monkeypatch):
    """Two cheap figures (no command run): a deterministic inline one and a timing one."""
    specs = {"det": figures.FigureSpec("det", "echo det", True, True, lambda w: "42/64 65.6% [53.4, 76.1]"),
             "lines": figures.FigureSpec("lines", "echo lines", True, False, lambda w: "a\nb"),
             "wall": figures.FigureSpec("wall", "echo wall", False, True, lambda w: "measured 9.9 s")}
    monkeypatch.setattr(figures, "FIGURES", specs)
    return figures


README = ("intro <!-- figure:det -->OLD<!-- /figure:det --> tail\n<!-- figure:lines -->\nold\n<!-- /figure:lines -->\n"
          "wall <!-- figure:wall -->measured 1.0 s<!-- /figure:wall -->\n")


def test_rewrite_replaces_only_the_blocks(fake, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    assert fake.main(["--readme", str(readme), "--work-dir", str(tmp_path / "w")]) == 0
    assert readme.read_text(encoding="utf-8") == (
        "intro <!-- figure:det -->42/64 65.6% [53.4, 76.1]<!-- /figure:det --> tail\n"
        "<!-- figure:lines -->\na\nb\n<!-- /figure:lines -->\nwall <!-- figure:wall -->measured 9.9 s<!-- /figure:wall -->\n")
    assert fake.main(["--readme", str(readme), "--check"]) == 0  # now matches


def test_text_edited_while_the_figures_run_is_kept(fake, tmp_path, monkeypatch):
    """The figures take minutes; a line of prose edited meanwhile, outside every block, survives the rewrite."""
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")

    def render_and_edit(w):  # the user edits the file while this figure's command runs
        readme.write_text(readme.read_text(encoding="utf-8").replace("intro", "edited intro"), encoding="utf-8")
        return "42/64 65.6% [53.4, 76.1]"
    monkeypatch.setitem(fake.FIGURES, "det", fake.FigureSpec("det", "echo det", True, True, render_and_edit))
    assert fake.main(["--readme", str(readme), "--work-dir", str(tmp_path / "w")]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("edited intro <!-- figure:det -->42/64 65.6% [53.4, 76.1]<!-- /figure:det --> tail")
    assert "<!-- figure:lines -->\na\nb\n<!-- /figure:lines -->" in text


def test_check_fails_on_a_stale_deterministic_block_and_never_compares_timing(fake, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    assert fake.main(["--readme", str(readme), "--check", "det"]) == 1
    out = capsys.readouterr().out
    assert "det: README.md block differs from `echo det`" in out and "-OLD" in out and "+42/64" in out
    assert fake.main(["--readme", str(readme), "--check", "wall"]) == 0  # 1.0 s vs 9.9 s: timing, not compared
    assert "wall: timing figure, not compared" in capsys.readouterr().out
    assert readme.read_text(encoding="utf-8") == README  # --check never writes


def test_a_missing_block_or_unknown_name_is_an_error(fake, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no blocks here\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="no file has a block <!-- figure:det -->"):
        fake.main(["--readme", str(readme), "det"])
    with pytest.raises(SystemExit):
        fake.main(["--readme", str(readme), "nope"])


def test_every_registered_figure_has_a_block_in_the_docs(figures):
    texts = {path: path.read_text(encoding="utf-8") for path in figures.doc_files()}
    for name in figures.FIGURES:
        figures.holders(texts, name)  # raises unless some file holds it, once per file
    assert not any("not measured yet" in text for text in texts.values())


def test_a_block_may_stand_in_several_files_and_all_are_rewritten(fake, tmp_path):
    one, two = tmp_path / "README.md", tmp_path / "page.md"
    one.write_text("a <!-- figure:det -->OLD<!-- /figure:det -->\n", encoding="utf-8")
    two.write_text("b <!-- figure:det -->OLDER<!-- /figure:det -->\n", encoding="utf-8")
    assert fake.main(["--file", str(one), "--file", str(two), "--work-dir", str(tmp_path / "w"), "det"]) == 0
    assert "-->42/64 65.6% [53.4, 76.1]<!--" in one.read_text(encoding="utf-8")
    assert "-->42/64 65.6% [53.4, 76.1]<!--" in two.read_text(encoding="utf-8")


def test_a_block_twice_in_one_file_is_an_error(fake, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- figure:det -->x<!-- /figure:det --> <!-- figure:det -->y<!-- /figure:det -->\n",
                    encoding="utf-8")
    with pytest.raises(SystemExit, match="page.md has 2 blocks"):
        fake.main(["--file", str(page), "det"])


@pytest.mark.slow
def test_the_cheap_deterministic_readme_blocks_match_their_commands():
    """Seeded simulator: `plan` and `toy-eval` reproduce exactly (the other deterministic blocks take
    minutes under load and are checked by running `python docs/figures.py --check` by hand)."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check", "plan", "toy-eval"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "plan: matches" in proc.stdout and "toy-eval: matches" in proc.stdout
