"""KAPRO registered: knowing vs acting (the code lives in `harnessx/kapro/`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harnessx.benchmarks.base import Benchmark, DataOption

if TYPE_CHECKING:
    from collections.abc import Callable

    from harnessx.scoring.task_score import TaskScore
    from harnessx.tasks import Task


class KaproBenchmark(Benchmark):
    name = "kapro"
    objective_names = ("kas", "kas_pass")
    help = "KAPRO: does the agent know which tools a task needs, and act so?"
    suites = {"kapro": "harnessx.kapro.suite:KaproSuite"}  # built-in suite or KAware files
    data = (DataOption("kaware", "kaware_dir", "a folder of KAware *.jsonl files, read recursively",
                       kind="dir", alias="--kaware-dir"),)
    cli = "harnessx.cli.kapro_cmd"
    simulator = "harnessx.sim.kapro"
    implementation = "harnessx.kapro.benchmark:Kapro"

    def evaluation_values(self, scores: list[TaskScore], tasks: list[Task]) -> list[TaskScore]:
        return self.impl().evaluation_values(scores, tasks)  # each trial's share of Avg KAS

    def summary_rows(self, card: dict) -> dict[str, str] | None:
        if "j_know" in (card.get("values") or {}) and not (card.get("strict_sa") or {}).get("n"):
            return {"solve": "pass rate (KAPRO: judged solved)"}  # no blocked tasks: no SA or joint row
        return None

    def summary_extra_rows(self, *cards: dict) -> list[tuple[Callable[[dict], str], str]]:
        """KAPRO's pooled KAS and its Avg KAS (the objective `kas`), Acc_know and Acc_act."""
        if not all("j_know" in (c.get("values") or {}) for c in cards):
            return []
        from harnessx.formatting.cells import value_cell
        from harnessx.kapro.benchmark import real_kas

        kas_cell = lambda c: ("n/a" if real_kas(c["values"]) is None else  # noqa: E731
                              f"{100 * real_kas(c['values']):.1f}% (n={c['values']['j_act']['n']}; harmonic mean of "
                              "Acc_know and Acc_act, CI: harnessx kapro eval)")
        mean_cell = lambda k: lambda c: value_cell(c["values"].get(k))  # noqa: E731  a mean of per-task values
        return [(kas_cell, "KAPRO KAS (aggregate, all tasks pooled)"),
                (mean_cell("kas_avg"), "Avg KAS (objective kas: per subspace, valid-weighted)"),
                (mean_cell("j_know"), "Acc_know"), (mean_cell("j_act"), "Acc_act")]


BENCHMARK = KaproBenchmark
