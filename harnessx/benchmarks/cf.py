"""Confident Fools registered: when to search and when to answer from memory (code in `harnessx/cf/`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harnessx.benchmarks.base import Benchmark, DataOption

if TYPE_CHECKING:
    from harnessx.scoring.task_score import TaskScore
    from harnessx.tasks import Task


class CFBenchmark(Benchmark):
    name = "cf"
    objective_names = ("cf", "cf_judged", "nas", "nas_judged", "kis", "kis_judged")
    help = "Confident Fools: when to search and when to answer from memory."
    suites = {"cf": "harnessx.cf.env:CFSuite",                 # with the web_search tool
              "cf-nosearch": "harnessx.cf.env:NoSearchSuite"}  # without a tool
    data = (DataOption("items", "items", "your items: a JSONL/JSON/YAML file", kind="path", alias="--items"),
            DataOption("corpus", "corpus", "the articles your items' search runs over: a JSONL/JSON/YAML file",
                       kind="path", alias="--corpus"))
    cli = "harnessx.cli.cf_cmd"
    simulator = "harnessx.sim.cf"
    implementation = "harnessx.cf.benchmark:CF"

    def metrics(self, scores: list[TaskScore], tasks: list[Task], n_resamples: int | None = None) -> dict[str, Any]:
        """Every metric per condition; `n_resamples` question-bootstrap resamples (default: the paper's)."""
        extra = {} if n_resamples is None else {"n_resamples": n_resamples}
        return self.impl().metrics(scores, tasks, **extra)

    def summary_rows(self, card: dict) -> dict[str, str] | None:
        if "cf" in (card.get("values") or {}) and not (card.get("strict_sa") or {}).get("n"):
            return {"solve": "accuracy (CF: correct answer)",  # no blocked tasks: no SA or joint row
                    "false_abstention": "false abstention (CF: abstained on an IK item)"}
        return None


BENCHMARK = CFBenchmark
