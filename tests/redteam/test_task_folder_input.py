"""A task folder is input too. A Dockerfile `COPY`/`ADD` whose source is absolute, leaves the build
context through `..`, or resolves outside it through a symlink, and any symlink in the task folder
that resolves outside it, make the task invalid: one line naming the file, the line and the source,
as Docker refuses them. A generator of source shapes checks that a task either loads with every
copy source inside its context, or is refused that way; and that building a loaded task's workspace
never copies a byte of a host file outside the folder."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.terminal.loader import load_spec
from harnessx.envs.terminal.workspace import Workspace
from harnessx.errors import InputError

SECRET = b"host-secret-" + uuid.uuid4().hex.encode()


def make_task(root: Path, name: str, copy_lines: list[str]) -> Path:
    """A task whose build context holds `data/in.txt`, a link into it and links out of it."""
    path = root / name
    context = path / "environment"
    (context / "data").mkdir(parents=True)
    (context / "data" / "in.txt").write_text("inside\n")
    os.symlink("data", context / "link_in")
    os.symlink(str(root / "outside"), context / "link_out")
    os.symlink("../../outside/secret.txt", context / "link_up")
    (context / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n" + "\n".join(copy_lines) + "\n")
    (path / "instruction.md").write_text("Do it.\n")
    (path / "task.toml").write_text('version = "1.0"\n')
    (path / "tests").mkdir()
    (path / "tests" / "test_outputs.py").write_text("def test_x():\n    pass\n")
    (path / "solution").mkdir()
    (path / "solution" / "solve.sh").write_text("echo done\n")
    return path


@pytest.fixture
def root(tmp_path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    return tmp_path


def build_copies(spec, ws: Workspace) -> None:
    """The Dockerfile's copy steps, as the environment replays them."""
    context = spec.path / "environment"
    for step in spec.recipe.steps:
        if step.kind == "copy":
            src, dest = step.args
            ws.copy_in(context / src, dest if dest.startswith("/") else f"{step.cwd}/{dest}")


def holds_secret(path: Path) -> bool:
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            full = Path(dirpath) / name
            if not full.is_symlink() and full.is_file() and SECRET in full.read_bytes():
                return True
    return False


REFUSED = {  # each copied the host file into the sandbox before (Docker refuses all of them)
    "absolute": "COPY {outside}/secret.txt /app/",
    "dotdot": "COPY ../../outside/secret.txt /app/",
    "dotdot-inside-first": "COPY data/../../../outside/secret.txt /app/x",
    "add-absolute": "ADD {outside}/secret.txt /app/",
    "link-to-dir-outside": "COPY link_out/secret.txt /app/",
    "link-to-file-outside": "COPY link_up /app/stolen",
    "link-dir-whole": "COPY link_out /app/loot/",
    "two-sources-one-bad": "COPY data/in.txt ../../outside/secret.txt /app/",
}


@pytest.mark.parametrize("shape", sorted(REFUSED))
def test_a_copy_from_outside_the_build_context_makes_the_task_invalid_naming_file_line_and_source(root, shape):
    line = REFUSED[shape].format(outside=root / "outside")
    path = make_task(root, f"t-{shape}", ["COPY data/in.txt /app/in.txt", line])
    with pytest.raises(InputError) as info:
        load_spec(path)
    message = str(info.value)
    assert "\n" not in message and "environment/Dockerfile line 4" in message, message
    bad = next(w for w in line.split()[1:-1] if w != "data/in.txt")
    assert repr(bad) in message and "build context" in message, message


def test_copies_inside_the_context_through_links_and_dots_still_load(root):
    lines = ["COPY data/in.txt /app/a.txt", "COPY ./data/../data/in.txt /app/b.txt", "COPY link_in/in.txt /app/c.txt",
             "COPY data /app/d/"]
    spec = load_spec(make_task(root, "fine", lines))
    assert [s.line for s in spec.recipe.steps] == [3, 4, 5, 6]


LINKED_FILES = ["instruction.md", "task.toml", "tests/test_outputs.py", "solution/solve.sh",
                "environment/Dockerfile", "tests/data/more.txt", "tests/data", "solution"]


@pytest.mark.parametrize("where", LINKED_FILES)
def test_a_symlink_the_loader_or_verifier_would_follow_out_of_the_task_folder_makes_it_invalid(root, where):
    path = make_task(root, "linked", ["COPY data/in.txt /app/in.txt"])
    target = path / where
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_dir():
        os.rename(target, path / "moved")
    elif target.exists():
        target.unlink()
    os.symlink(str(root / "outside" / ("" if where in ("tests/data", "solution") else "secret.txt")), target)
    with pytest.raises(InputError) as info:
        load_spec(path)
    assert f"task linked: {where}" in str(info.value) and "outside the task folder" in str(info.value)


def test_tasks_list_names_a_task_copying_a_host_file_as_invalid(root):
    make_task(root / "suite", "steals", ["COPY ../../outside/secret.txt /app/"])
    make_task(root / "suite", "honest", ["COPY data/in.txt /app/"])
    result = CliRunner().invoke(app, ["tasks", "list", "--env", "terminal", "--tasks-dir", str(root / "suite")])
    assert result.exit_code == 0, result.output
    assert "invalid task steals" in result.output and "line 3" in result.output, result.output
    assert "1 valid, 1 invalid" in result.output


# --- the generator: source shapes nobody wrote down ---------------------------------------------------
PARTS = ["..", ".", "data", "in.txt", "link_in", "link_out", "link_up", "outside", "secret.txt", "", "nope"]
sources = st.builds(lambda lead, parts: lead + "/".join(parts),
                    st.sampled_from(["", "/", "./", "../", "../../"]),
                    st.lists(st.sampled_from(PARTS), min_size=1, max_size=6)).filter(lambda s: s.strip("/"))


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(srcs=st.lists(sources, min_size=1, max_size=3))
def test_the_loader_never_reads_outside_the_task_folder_whatever_the_copy_source(root, srcs):
    name = f"gen-{uuid.uuid4().hex[:8]}"
    lines = [f"COPY {s} /app/dest{i}/" for i, s in enumerate(srcs)]
    path = make_task(root, name, lines)
    context = os.path.realpath(path / "environment")
    try:
        spec = load_spec(path)
    except InputError as exc:
        message = str(exc)
        assert "\n" not in message and f"task {name}: environment/Dockerfile line " in message, message
        assert any(repr(s) in message for s in srcs), message
        return
    for step in spec.recipe.steps:  # loaded: every source resolves inside the context
        real = os.path.realpath(path / "environment" / step.args[0])
        assert real == context or real.startswith(context + "/"), (step.args[0], real)
    ws = Workspace(["/app"])
    try:
        build_copies(spec, ws)
        assert not holds_secret(ws.base), srcs
    finally:
        ws.cleanup()
