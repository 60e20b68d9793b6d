"""Benchmarks add their own comparison tables through the benchmark registry; `harnessx/report/`
names no benchmark."""

from __future__ import annotations

import re
from pathlib import Path

from harnessx.benchmarks.registry import BENCHMARKS, compare_tables, get_benchmark

REPORT = Path(__file__).resolve().parent.parent / "harnessx" / "report"


def mean(value: float, n: int = 10) -> dict:
    return {"value": value, "ci": [value - 0.1, value + 0.1], "n": n}


def block(values: dict) -> dict:
    return {"split": "heldout", "values": values, "benchmarks": {}, "differences": []}


def test_a_comparison_block_gets_the_tables_of_the_benchmark_that_measured_it():
    kapro = block({"A": {"j_know": mean(0.5), "j_act": mean(0.25)}, "B": {"j_know": mean(0.75), "j_act": mean(0.5)}})
    tables = compare_tables(kapro, 100)
    assert [t.title for t in tables] == ["heldout split: KAPRO values"]
    assert tables[0].headers == ["metric", "A", "B"]
    assert tables[0].rows[0][1] == "0.333 (n=10)"  # KAS = harmonic mean of 0.5 and 0.25
    assert compare_tables(block({"A": {}, "B": {}}), 100) == []  # ASA only: the generic table says it all


def test_every_benchmark_declares_its_comparison_tables():
    for name in BENCHMARKS:
        assert get_benchmark(name).compare_tables(block({"A": {}}), 100) == [], name


def test_the_report_package_names_no_benchmark():
    names = [n for n in BENCHMARKS if n != "asa"]
    pattern = re.compile(r"harnessx\.(%s)\b|\"(j_know|fass|cf)\"" % "|".join(names))
    found = [f"{path.name}: {m.group(0)}" for path in sorted(REPORT.glob("*.py"))
             for m in pattern.finditer(path.read_text(encoding="utf-8"))]
    assert not found
