"""Benchmarks: data + protocol + per-task scorer + aggregate metrics, behind one protocol (`base.py`),
found by discovery (`registry.py`): each entry point of the group `harnessx.benchmarks` is one benchmark."""

from harnessx.benchmarks.base import Benchmark, DataOption
from harnessx.benchmarks.registry import (
    BENCHMARKS,
    benchmark_of,
    get_benchmark,
    names,
    objectives,
    score_trial,
    with_evaluation_values,
)

__all__ = ["BENCHMARKS", "Benchmark", "DataOption", "benchmark_of", "get_benchmark", "names", "objectives",
           "score_trial", "with_evaluation_values"]
