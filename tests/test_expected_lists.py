"""Every "expected one of" list is printed one way, by `harnessx.errors.one_of`: plain words, never a
Python list or tuple (`['a', 'b']`) beside a comma-joined one. The class: any refusal of a value
outside a fixed set of choices; the source scan keeps a new refusal from formatting its own list."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harnessx.errors import InputError, one_of

ROOT = Path(__file__).resolve().parent.parent
PLAIN = re.compile(r"(a YAML path or )?one of [\w./-]+(, [\w./-]+)*(, or an import path package\.module:Class)?")


def test_one_of_is_plain_words():
    assert one_of(("a", "b-c", "d")) == "one of a, b-c, d"
    assert one_of([]) == "none" and one_of(iter(["x"])) == "one of x"


def test_no_expected_list_is_formatted_by_hand():
    offenders = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
                 for path in sorted((ROOT / "harnessx").rglob("*.py")) if path != ROOT / "harnessx" / "errors.py"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"one of \{|one of \[", line)]
    assert offenders == [], "format the choices with harnessx.errors.one_of"


def _refusals():
    from harnessx.benchmarks.registry import get_benchmark
    from harnessx.envs.registry import get_suite
    from harnessx.envs.terminal.sandbox import make_sandbox
    from harnessx.harness import load_preset
    from harnessx.logs import log_level
    from harnessx.search.objectives import get_objective
    from harnessx.search.proposers import make_proposer
    from harnessx.search.rules import make_acceptance
    from harnessx.search.space import load_space

    return {"--env": lambda: get_suite("bogus"), "--preset": lambda: load_preset("bogus"),
            "--accept": lambda: make_acceptance("bogus"), "--objective": lambda: get_objective("bogus"),
            "sandbox": lambda: make_sandbox("bogus"), "--space": lambda: load_space("bogus"),
            "benchmark": lambda: get_benchmark("bogus"), "--proposer": lambda: make_proposer("bogus"),
            "HARNESSX_LOG": lambda: log_level(False, {"HARNESSX_LOG": "bogus"})}


@pytest.mark.parametrize("option", ["--env", "--preset", "--accept", "--objective", "sandbox", "--space", "benchmark",
                                    "--proposer", "HARNESSX_LOG"])
def test_each_refusal_of_a_choice_lists_the_choices_as_plain_words(option):
    with pytest.raises(InputError) as info:
        _refusals()[option]()
    assert info.value.source == option
    assert PLAIN.fullmatch(info.value.expected), info.value.expected
    assert "'bogus'" in str(info.value) and str(info.value).endswith(f"(expected {info.value.expected})")
