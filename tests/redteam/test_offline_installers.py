"""pip and apt in the sandbox install what was asked or fail loudly. The offline shims used to strip
every version from a requirement and answer "already satisfied" for the name (`pip install
scipy==0.0.1` passed with scipy 1.x installed). Now any requirement whose specifier the installed
version does not meet fails, naming it and the installed version. The family: for installed
distributions with a plain `X.Y.Z` version, every operator against versions one step around it,
with the expected answer worked out from the release numbers (not from `packaging`)."""

from __future__ import annotations

import importlib.metadata
import random
import re
import shlex

import pytest

from faults.test_verifier_attacks import backends
from harnessx.envs.terminal.sandbox import Layout, make_sandbox
from harnessx.envs.terminal.workspace import Workspace

pytestmark = pytest.mark.skipif(not backends(), reason="no sandbox")
BACKENDS = pytest.mark.parametrize("backend", backends())
OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def plain_distributions(n: int = 2) -> list[tuple[str, tuple[int, int, int]]]:
    """A seeded sample of installed distributions whose version is exactly X.Y.Z (Y, Z > 0)."""
    found = {}
    for dist in importlib.metadata.distributions():
        name, version = dist.metadata["Name"], dist.version
        if name and re.fullmatch(r"[1-9]\d*\.[1-9]\d*\.[1-9]\d*", version or ""):
            found[name.lower()] = tuple(int(x) for x in version.split("."))
    return random.Random(46).sample(sorted(found.items()), min(n, len(found)))


def cases() -> list[tuple[str, bool]]:
    """(requirement, satisfied by what is installed)."""
    out = []
    for name, v in plain_distributions():
        for i in (1, 2):
            for d in (-1, 0, 1):
                w = list(v)
                w[i] += d
                w = tuple(w)
                for op, holds in OPS.items():
                    out.append((f"{name}{op}{'.'.join(map(str, w))}", holds(v, w)))
        out.append((f"{name}~={v[0]}.{v[1]}", True))
        out.append((f"{name}~={v[0] + 1}.0", False))
        out.append((f"{name}>={v[0]}.0,<{v[0] + 1}", True))
        out.append((f"{name}>{v[0]}.{v[1]}.{v[2]},<{v[0] + 9}", False))
    out += [("scipy==0.0.1", False), ("hx-no-such-distribution", False),
            ('hx-no-such-distribution; python_version < "3"', True)]  # a marker that does not apply
    return out


@pytest.fixture(params=backends())
def box(request):
    ws = Workspace(["/app"])
    sandbox = make_sandbox(request.param)
    sandbox.start(Layout(mounts=ws.mounts))
    yield sandbox
    sandbox.stop()
    ws.cleanup()


@pytest.mark.slow
def test_every_pip_requirement_is_met_by_the_installed_version_or_refused_naming_it(tmp_path):
    family = cases()  # the shim is one script for every backend: the family runs on the first
    ws = Workspace(["/app"])
    box = make_sandbox(backends()[0])
    try:
        box.start(Layout(mounts=ws.mounts))
        result = box.run(family_script(family), 900, cwd="/tmp")
    finally:
        box.stop()
        ws.cleanup()
    check_family(family, result)


def test_an_unmet_pin_is_refused_in_every_sandbox(box):
    family = [("scipy==0.0.1", False), ("hx-no-such-distribution", False), (f"{plain_distributions(1)[0][0]}>0.1", True)]
    check_family(family, box.run(family_script(family), 120, cwd="/tmp"))


def family_script(family: list[tuple[str, bool]]) -> str:
    return "\n".join(f"pip install {shlex.quote(req)} >/tmp/o 2>/tmp/e; echo \"case {i} rc=$? $(head -1 /tmp/e)\""
                     for i, (req, _) in enumerate(family))


def check_family(family: list[tuple[str, bool]], result) -> None:
    lines = {int(m.group(1)): (int(m.group(2)), m.group(3)) for m in
             re.finditer(r"^case (\d+) rc=(\d+) ?(.*)$", result.stdout, re.M)}
    assert len(lines) == len(family), result.stdout[-2000:] + result.stderr[-2000:]
    wrong = []
    for i, (req, satisfied) in enumerate(family):
        rc, err = lines[i]
        if satisfied != (rc == 0) or (not satisfied and req.split(";")[0] not in err):
            wrong.append((req, satisfied, rc, err))
    assert not wrong, wrong[:10]


def test_a_requirements_file_with_one_unmet_pin_fails_and_names_it(box):
    name, v = plain_distributions(1)[0]
    lines = f"# pins\n{name}=={'.'.join(map(str, v))}\n{name}<{v[0]}  # too old\n"
    result = box.run(f"printf {shlex.quote(lines)} > /tmp/req.txt; pip install -r /tmp/req.txt; echo rc=$?; "
                     f"pip install -e . ; echo rc=$?; pip install ./nowhere; echo rc=$?", 120, cwd="/tmp")
    assert result.stdout.count("rc=1") == 3, result.stdout + result.stderr
    assert f"{name}<{v[0]} is not satisfied: {name} {'.'.join(map(str, v))} is installed" in result.stderr, result.stderr
    assert "editable" in result.stderr and "'./nowhere'" in result.stderr


def test_apt_pins_must_match_the_installed_version(box):
    result = box.run("v=$(dpkg-query -W -f='${Version}' bash); apt-get install -y bash=$v; echo rc=$?; "
                     "apt-get install -y bash=0.0.1; echo rc=$?; apt-get install -y bash; echo rc=$?", 120)
    assert re.findall(r"rc=(\d+)", result.stdout) == ["0", "100", "0"], result.stdout + result.stderr
    assert "bash=0.0.1 (installed:" in result.stderr
