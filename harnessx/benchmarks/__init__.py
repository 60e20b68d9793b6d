"""Benchmarks: data + protocol + per-task scorer + aggregate metrics, behind one small protocol."""

from harnessx.benchmarks.base import Benchmark
from harnessx.benchmarks.registry import (
    BENCHMARKS,
    benchmark_of,
    get_benchmark,
    objectives,
    score_trial,
    with_evaluation_values,
)

__all__ = ["BENCHMARKS", "Benchmark", "benchmark_of", "get_benchmark", "objectives", "score_trial",
           "with_evaluation_values"]
