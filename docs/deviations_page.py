"""Generate docs/deviations.md from docs/deviations.yaml, the list of every known difference from a peer.

    python docs/deviations_page.py           # rewrite the page
    python docs/deviations_page.py --check   # exit 1 when the page and the entries differ

Each entry names the test that shows it (tests/test_deviations.py checks that the test exists and
that every entry has one); the page is never edited by hand.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "deviations.yaml"
PAGE = ROOT / "docs" / "deviations.md"
FIELDS = ("id", "peer", "title", "peer_does", "harnessx_does", "why", "test")
INTRO = """# Deliberate deviations from the peers

Where HarnessX's environments and scorers knowingly behave differently from the peer code they
reproduce, and why. Everything not listed here is meant to match the peer; a difference found
elsewhere is a bug. This page is generated from `docs/deviations.yaml` (`python
docs/deviations_page.py`); each entry names the test that shows the difference, on the peer's own
code where it is installable.
"""


def load(path: Path = DATA) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for index, entry in enumerate(data["entries"]):
        missing = [f for f in FIELDS if not entry.get(f)]
        if missing or entry["peer"] not in data["peers"]:
            raise SystemExit(f"{path}: entries[{index}] needs {', '.join(missing) or 'a peer listed under peers'}")
    return data


def render(data: dict) -> str:
    parts = [INTRO]
    for key, peer in data["peers"].items():
        parts.append(f"\n## {peer['title']}\n\n{peer['code'].strip()}\n")
        for e in (e for e in data["entries"] if e["peer"] == key):
            parts.append(f"\n### {e['title'].strip()}\n\n- **{peer['title']}** {e['peer_does'].strip()}\n"
                         f"- **HarnessX** {e['harnessx_does'].strip()}\n- **Why:** {e['why'].strip()}\n"
                         f"- **Shown by** `{e['test']}` (entry `{e['id']}`).\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/deviations.md is not generated")
    args = parser.parse_args(argv)
    text = render(load())
    if args.check:
        current = PAGE.read_text(encoding="utf-8")
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       "docs/deviations.md", "generated"))
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
