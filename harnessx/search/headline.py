"""The headline metrics of a search: what each round's curve, the tracker and the selected harness's
provenance report. They come from the benchmark(s) of the search's tasks (`Benchmark.headline`), so a
KAPRO or Confident Fools search summarises its own metrics and an ASA search its five rates."""

from __future__ import annotations

from harnessx.benchmarks import benchmark_of
from harnessx.scoring import Scorecard
from harnessx.scoring.rate import MeanValue, Rate
from harnessx.tasks import Task


def headline_of(tasks: list[Task]) -> tuple[str, ...]:
    """The headline metric names of the benchmarks of these tasks, in task order, each once."""
    names: dict[str, None] = {}
    for benchmark in dict.fromkeys(benchmark_of(t) for t in tasks):
        names.update(dict.fromkeys(benchmark.headline))
    return tuple(names)


def headline_metric(card: Scorecard, key: str) -> Rate | MeanValue:
    """A Scorecard rate by its name, else the mean of a per-trial value (empty when no trial has it)."""
    rate = getattr(card, key, None)
    if isinstance(rate, Rate):
        return rate
    return card.values.get(key) or MeanValue(0.0, 0)
