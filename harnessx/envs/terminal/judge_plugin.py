"""The verifier's pytest plugin (`-p hx_judge`), copied into a read-only directory of the verifier's
sandbox; it never imports harnessx. It reports what the tests did as JSON lines on a channel the
host holds: a pipe inherited as fd `HX_RESULT_FD` (close-on-exec here, so processes the tests start
never have it; this process is made non-dumpable, so none can reopen it through /proc), or, where a
backend passes no fd, the file `HX_RESULT_FILE`.

Every record carries a token drawn at start (sent in the `start` record, before any code of the
agent's is imported), so records written to the channel by anything but this plugin are forged on
their face; each `report` also says whether pytest's machinery was tampered with since start (its
core functions replaced, or a hook implemented in a file outside the interpreter, the tests and
this directory). Code the tests import runs in this process and could, written against this very
plugin, still rewrite it: docs/threat-model.md states that residual risk.

Records: `start` when pytest imports this plugin (before any conftest or test module: nothing of
the agent's has been imported, and the work directory is put on the module path only after it),
one `collect` per failed collection, one `report` per test phase (with whether the phase raised,
read from the call itself, and the test's skip/xfail marks), and `finish` with pytest's exit status. The host grades from these (grading.py);
a process that exits early leaves no `finish`, so it passes nothing.
"""

import json
import os
import sys
import types

import _pytest.python
import _pytest.reports
import _pytest.runner
import pytest

_write = os.write
_dumps = json.dumps
_FD = None
_TOKEN = os.urandom(16).hex()
_CORE = {"call_and_report": (_pytest.runner, "call_and_report"), "from_call": (_pytest.runner.CallInfo, "from_call"),
         "runtestprotocol": (_pytest.runner, "runtestprotocol"), "runtest": (_pytest.python.Function, "runtest"),
         "from_item_and_call": (_pytest.reports.TestReport, "from_item_and_call"),
         "runner_makereport": (_pytest.runner, "pytest_runtest_makereport"), "os_write": (os, "write")}
_SEALED = {name: owner.__dict__.get(attr, getattr(owner, attr)) for name, (owner, attr) in _CORE.items()}
_TRUSTED = tuple(sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, os.path.dirname(os.__file__),
                                                      os.path.dirname(pytest.__file__))} | {"/tests", os.path.dirname(__file__)}))
_HOOKS = ("pytest_runtest_makereport", "pytest_runtest_protocol", "pytest_runtest_call", "pytest_pyfunc_call",
          "pytest_collection_modifyitems", "pytest_report_teststatus", "pytest_runtest_logreport")
_CONFIG = []  # pytest's config, once configured
_WORKDIR = os.environ.pop("HX_WORKDIR", "")
_UNSEALED = {"sys", "__main__", "warnings"}  # state pytest and tests rebind as they run (streams, warning hooks)
_CALLABLE = (types.BuiltinFunctionType, types.FunctionType, type)


def _seal() -> dict:
    """id of every function, builtin and class bound in a module loaded so far (the interpreter's and
    pytest's: nothing of the agent is loaded before start), so a later rebinding (a monkeypatched
    `Path.read_text`, `open`, a pytest function) is seen."""
    sealed = {}
    for name, module in list(sys.modules.items()):
        if name in _UNSEALED or module is None:
            continue
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            if isinstance(value, _CALLABLE):
                sealed[(name, attr, None)] = id(value)
                if isinstance(value, type) and getattr(value, "__module__", None) == name:
                    for key, member in list(value.__dict__.items()):
                        if isinstance(member, _CALLABLE) or isinstance(member, (classmethod, staticmethod)):
                            sealed[(name, attr, key)] = id(member)
    return sealed


_SEAL: dict = {}


def _rebound() -> str:
    missing = object()
    for (name, attr, member), ident in _SEAL.items():
        value = getattr(sys.modules.get(name), "__dict__", {}).get(attr, missing)
        if member is not None:
            value = getattr(value, "__dict__", {}).get(member, missing)
        if id(value) != ident:
            return f"{name}.{attr}{'.' + member if member else ''} rebound"
    return ""


def _agent_modules() -> list[str]:
    """Files of modules imported from the work directory (the agent's code, run in this process)."""
    found = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None) or ""
        if _WORKDIR and path.startswith(_WORKDIR.rstrip("/") + "/"):
            found.append(path)
    return sorted(found)


def _channel() -> int:
    global _FD
    if _FD is None:
        if "HX_RESULT_FD" in os.environ:
            _FD = int(os.environ.pop("HX_RESULT_FD"))
            os.set_inheritable(_FD, False)
        else:
            _FD = os.open(os.environ.pop("HX_RESULT_FILE"), os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    return _FD


def _tampered(full: bool = True) -> str:
    """What of pytest's machinery changed since start ('' when nothing); `full` also compares every
    sealed binding (done after each test body and at the end)."""
    rebound = _rebound() if full else ""
    if rebound:
        return rebound
    for name, (owner, attr) in _CORE.items():
        if owner.__dict__.get(attr, getattr(owner, attr)) is not _SEALED[name]:
            return f"{name} replaced"
    for hook in _HOOKS if _CONFIG else ():
        for impl in getattr(_CONFIG[0].pluginmanager.hook, hook).get_hookimpls():
            code = getattr(impl.function, "__code__", None)
            where = os.path.realpath(code.co_filename) if code else "?"
            if not where.startswith(tuple(t + "/" for t in _TRUSTED)):
                return f"{hook} implemented in {where}"
    return ""


def _emit(**record) -> None:
    record["t"] = _TOKEN
    data = (_dumps(record) + "\n").encode()
    while data:
        data = data[_write(_channel(), data):]


def _undumpable() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except (OSError, AttributeError):
        pass


def _begin() -> None:
    """At import (`-p hx_judge` is imported before any conftest or test module): report the start,
    then put the work directory last on the module path (the tests, and a task's conftest, may
    import the agent's modules). The broad seal waits for pytest's own configuration (which rebinds
    hooks such as `threading.excepthook`); pytest's core functions are sealed at import."""
    _channel()
    _undumpable()
    _emit(event="start", pid=os.getpid())
    if _WORKDIR:
        sys.path.append(_WORKDIR)


@pytest.hookimpl(trylast=True)
def pytest_configure(config) -> None:
    _CONFIG.append(config)
    _SEAL.update(_seal())


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
          xfailed=hasattr(report, "wasxfail"), tampered=_tampered(call.when == "call"))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    _emit(event="finish", exitstatus=int(exitstatus), collected=session.testscollected, tampered=_tampered(),
          agent_modules=_agent_modules())


_begin()
