"""The verifier's pytest plugin (`-p hx_judge`), copied into a read-only directory of the verifier's
sandbox; it never imports harnessx. It reports what the tests did as JSON lines on a channel the
host holds: a pipe inherited as fd `HX_RESULT_FD` (close-on-exec here, so processes the tests start
never have it; this process is made non-dumpable, so none can reopen it through /proc), or, where a
backend passes no fd, the file `HX_RESULT_FILE`.

Records: `start` once pytest is configured (nothing of the agent has been imported: the work
directory is put on the module path only after it), one `collect` per failed collection, one
`report` per test phase (with whether the phase raised, read from the call itself, and the test's
skip/xfail marks), and `finish` with pytest's exit status. The host grades from these (grading.py);
a process that exits early leaves no `finish`, so it passes nothing.
"""

import json
import os
import sys

import pytest

_write = os.write
_dumps = json.dumps
_FD = None


def _channel() -> int:
    global _FD
    if _FD is None:
        if "HX_RESULT_FD" in os.environ:
            _FD = int(os.environ.pop("HX_RESULT_FD"))
            os.set_inheritable(_FD, False)
        else:
            _FD = os.open(os.environ.pop("HX_RESULT_FILE"), os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    return _FD


def _emit(**record) -> None:
    data = (_dumps(record) + "\n").encode()
    while data:
        data = data[_write(_channel(), data):]


def _undumpable() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except (OSError, AttributeError):
        pass


@pytest.hookimpl(trylast=True)
def pytest_configure(config) -> None:
    _channel()
    _undumpable()
    _emit(event="start", pid=os.getpid())
    workdir = os.environ.pop("HX_WORKDIR", "")
    if workdir:
        sys.path.append(workdir)  # tests may import the agent's modules, last on the path


def pytest_collectreport(report) -> None:
    if report.failed:
        _emit(event="collect", nodeid=report.nodeid, outcome="failed")


def _marked(item, *names: str) -> bool:
    return any(True for name in names for _ in item.iter_markers(name))


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    _emit(event="report", nodeid=item.nodeid, when=call.when, outcome=report.outcome,
          raised=None if call.excinfo is None else call.excinfo.typename,
          skip_mark=_marked(item, "skip", "skipif"), xfail_mark=_marked(item, "xfail"),
          xfailed=hasattr(report, "wasxfail"))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    _emit(event="finish", exitstatus=int(exitstatus), collected=session.testscollected)
