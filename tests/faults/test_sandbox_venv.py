"""A virtualenv inside the checkout (`.venv/`, the layout .gitignore expects), reached through a `..`
path or a symlink: the sandbox must still hide the project tree, and `python` inside it must run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = r"""
import sys, tempfile
from pathlib import Path
from harnessx.envs.terminal.sandbox import Layout, make_sandbox
project, backend = sys.argv[1], sys.argv[2]
ws = Path(tempfile.mkdtemp())
mounts = {}
for root in ("/app", "/tmp"):
    (ws / root.strip("/")).mkdir()
    mounts[root] = ws / root.strip("/")
box = make_sandbox(backend)
box.start(Layout(mounts=mounts))
hidden = box.run(f"test -e {project}", 30).exit_code != 0
py = box.run("python -c 'import sys; print(sys.prefix)'", 30)
box.stop()
print(hidden, py.exit_code, py.stdout.strip())
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("checkout") / "proj"
    root.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(root / ".venv")],
                   check=True)
    (root.parent / "venv-link").symlink_to(root / ".venv")
    return root


@pytest.mark.requires("bwrap")
@pytest.mark.parametrize("how", ["direct", "dotdot", "symlink"])
def test_a_venv_in_the_checkout_stays_hidden_and_python_runs(project, how):
    python = {"direct": project / ".venv" / "bin" / "python",
              "dotdot": project / ".venv" / "bin" / ".." / "bin" / "python",
              "symlink": project.parent / "venv-link" / "bin" / "python"}[how]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([str(python), "-c", PROBE, str(project), "bwrap"], capture_output=True, text=True,
                         env=env)
    assert out.returncode == 0, out.stderr
    hidden, code, prefix = out.stdout.split()
    assert hidden == "True", "the project tree (holding the venv) is visible in the sandbox"
    assert code == "0" and prefix == "/run/harnessx/venv"
