"""The verifier's mechanisms one by one, without a sandbox episode (fast): the host's no-follow file
access, the grade read from the judge's records, the bounded capture of a command's output. The
red-team suite (test_redteam.py) attacks them end to end."""

from __future__ import annotations

import json
import os
import threading

import pytest

from harnessx.envs.terminal import hostio
from harnessx.envs.terminal.grading import expected_tests, grade
from harnessx.envs.terminal.sandbox.base import OUTPUT_LIMIT, Limits, run_process

TOKEN = "t0"
EXPECTED = {"test_outputs.py::test_a", "test_outputs.py::test_b"}


def stream(*records: dict, token: str = TOKEN) -> bytes:
    return b"".join(json.dumps({**r, "t": r.get("t", token)}).encode() + b"\n" for r in records)


def phases(nodeid: str, call: str = "passed", **extra) -> list[dict]:
    return [{"event": "report", "nodeid": nodeid, "when": w, "outcome": call if w == "call" else "passed",
             "raised": None, **(extra if w == "call" else {})} for w in ("setup", "call", "teardown")]


def full(*reports: dict, status: int = 0) -> bytes:
    return stream({"event": "start"}, *reports, {"event": "finish", "exitstatus": status})


PASSING = [*phases("test_outputs.py::test_a"), *phases("test_outputs.py::test_b[1]"), *phases("test_outputs.py::test_b[2]")]


def test_a_full_clean_run_passes_and_parameters_count_for_their_test():
    assert grade(full(*PASSING), EXPECTED, 0).reward == 1.0


@pytest.mark.parametrize("case", ["no-finish", "missing-test", "skip-raised", "xfail-raised", "raised-but-passed",
                                  "forged-token", "duplicate", "collect-error", "bad-status", "garbage", "tampered",
                                  "no-tests"])
def test_every_way_short_of_a_clean_report_is_a_zero_never_an_exclusion(case):
    reports = list(PASSING)
    body = {
        "no-finish": stream({"event": "start"}, *reports),
        "missing-test": full(*phases("test_outputs.py::test_a")),
        "skip-raised": full(*phases("test_outputs.py::test_a", "skipped"), *reports[3:]),
        "xfail-raised": full(*phases("test_outputs.py::test_a", "skipped", xfailed=True), *reports[3:]),
        "raised-but-passed": full(*phases("test_outputs.py::test_a", raised="AssertionError"), *reports[3:]),
        "forged-token": full(*reports[:-1], {**reports[-1], "t": "forged"}),
        "duplicate": full(*reports, reports[1]),
        "collect-error": full({"event": "collect", "nodeid": "test_outputs.py", "outcome": "failed"}, *reports),
        "bad-status": full(*reports, status=1),
        "garbage": full(*reports) + b"not json\n",
        "tampered": full(*reports[:-1], {**reports[-1], "tampered": "pathlib.Path.read_text rebound"}),
        "no-tests": full(),
    }[case]
    verdict = grade(body, EXPECTED, 0)
    assert verdict.reward == 0.0 and not verdict.excluded and verdict.cause, (case, verdict)


def test_marked_skips_and_expected_failures_count_and_only_a_run_that_never_started_is_excluded():
    marked = full(*[{**r, "outcome": "skipped", "skip_mark": True} for r in phases("test_outputs.py::test_a")[:1]],
                  *phases("test_outputs.py::test_b", "skipped", xfailed=True, xfail_mark=True))
    assert grade(marked, EXPECTED, 0).reward == 1.0
    never = grade(b"", EXPECTED, 1)
    assert never.excluded and "never started" in never.cause
    assert grade(full(), set(), 5).excluded  # the task's files define no test: the task's fault


def test_expected_tests_are_read_from_the_task_source(tmp_path):
    (tmp_path / "test_outputs.py").write_text(
        "import pytest\n\ndef test_a():\n    pass\n\nasync def test_async():\n    pass\n\ndef helper():\n    pass\n\n"
        "class TestGroup:\n    def test_m(self):\n        pass\n\nclass TestInit:\n    def __init__(self):\n        pass\n"
        "    def test_never(self):\n        pass\n")
    assert expected_tests(tmp_path, ["test_outputs.py"]) == {
        "test_outputs.py::test_a", "test_outputs.py::test_async", "test_outputs.py::TestGroup::test_m"}


def test_the_host_refuses_links_fifos_and_linked_parents_and_never_blocks(tmp_path):
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f").write_text("ok")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("host")
    os.symlink(outside / "secret", root / "link")
    os.symlink(outside, root / "dirlink")
    os.mkfifo(root / "fifo")
    assert hostio.read_file(root, "d/f", 100) == b"ok"
    for rel in ("link", "dirlink/secret", "fifo", "../outside/secret"):
        with pytest.raises(OSError):
            hostio.read_file(root, rel, 100)
    with pytest.raises(OSError):
        hostio.write_new(root, "link", b"x")  # a planted link under the name is never written through
    with pytest.raises(OSError):
        hostio.write_new(root, "dirlink/new", b"x")
    assert (outside / "secret").read_text() == "host" and not (outside / "new").exists()
    states = dict(hostio.walk_states(root, 1 << 20))
    assert states["fifo"][0] == "special" and states["link"][0] == "link" and states["dirlink"][0] == "link"
    assert not any(k.startswith("dirlink/") for k in states)


def test_a_snapshot_racing_a_fifo_swapper_finishes(tmp_path):
    """A thread swaps files for FIFOs as fast as it can while snapshots walk the directory."""
    root = tmp_path / "ws"
    root.mkdir()
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            for i in range(32):
                path = root / f"f{i}"
                path.unlink(missing_ok=True)
                os.mkfifo(path)
                path.unlink()
                path.write_text("x")

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        taken = [dict(hostio.walk_states(root, 1 << 20)) for _ in range(50)]
    finally:
        stop.set()
        thread.join()
    assert len(taken) == 50 and all(len(states) <= 32 for states in taken)  # each walk ended, one entry a file


def test_a_command_printing_without_end_is_held_to_a_bounded_capture():
    result = run_process(["/bin/sh", "-c", f"head -c {3 * OUTPUT_LIMIT} /dev/zero | tr '\\0' a; echo; echo end"],
                         60, Limits())
    assert result.exit_code == 0 and len(result.stdout) < OUTPUT_LIMIT + 200
    assert result.stdout.rstrip().endswith("end") and "bytes of output dropped" in result.stdout


def test_a_tree_of_any_depth_is_walked_within_bounds_and_measured(tmp_path):
    from harnessx.envs.terminal.workspace import disk_usage

    root = tmp_path / "ws"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(3000):  # deeper than Python's recursion limit
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)
    states = dict(hostio.walk_states(root, 1 << 20))
    assert [k for k, v in states.items() if v[0] == "deep"] == ["/".join(["d"] * (hostio.MAX_DEPTH + 1))]
    assert disk_usage(root) > 0
