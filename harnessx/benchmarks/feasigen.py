"""FeasiGen registered: masked infeasible suites and STOP metrics (code in `harnessx/feasigen/`)."""

from __future__ import annotations

from harnessx.benchmarks.base import Benchmark, DataOption


class FeasiGenBenchmark(Benchmark):
    name = "feasigen"
    objective_names = ("fass", "fcr_solve")
    help = "FeasiGen: build masked suites, verify, evaluate STOP, report."
    suites = {"feasigen": "harnessx.feasigen.suite:FeasiGenSuite"}  # a suite built by `harnessx feasigen build`
    data = (DataOption("suite", "tasks_dir", "a suite folder written by `harnessx feasigen build`", kind="dir",
                       alias="--tasks-dir"),)
    suite_options = ("sandbox",)
    cli = "harnessx.cli.feasigen_cmd"
    implementation = "harnessx.feasigen.benchmark:FeasiGen"


BENCHMARK = FeasiGenBenchmark
