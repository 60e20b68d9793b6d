"""Generic verifier of the built-in terminal suite: runs the checks listed in expected.json."""

import configparser
import csv
import json
import os
import subprocess
from pathlib import Path

import pytest

CHECKS = json.loads((Path(__file__).parent / "expected.json").read_text())["checks"]


def normalise(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def check_text(c):
    assert normalise(Path(c["path"]).read_text()) == normalise(c["text"])


def check_json(c):
    assert json.loads(Path(c["path"]).read_text()) == c["value"]


def check_csv(c):
    with open(c["path"], newline="") as fh:
        rows = [row for row in csv.reader(fh) if row]
    assert rows == c["rows"]


def check_files(c):
    root = Path(c["dir"])
    found = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) if root.is_dir() else None
    assert found == sorted(c["names"])


def check_absent(c):
    assert not os.path.exists(c["path"])


def check_ini(c):
    parser = configparser.ConfigParser(interpolation=None)
    assert parser.read(c["path"]), "cannot read " + c["path"]
    for section, values in c["values"].items():
        for key, value in values.items():
            assert parser.get(section, key) == value


def check_run(c):
    out = subprocess.run(c["argv"], capture_output=True, text=True, cwd=c.get("cwd", "/app"), timeout=60)
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.strip() == c["stdout"].strip()


@pytest.mark.parametrize("check", CHECKS, ids=[f"{i}-{c['type']}" for i, c in enumerate(CHECKS)])
def test_check(check):
    globals()["check_" + check["type"]](check)
