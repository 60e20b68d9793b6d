"""The benchmark protocol: every hook the core calls, declared here with its default.

A benchmark is one class derived from `Benchmark`, in a module (or package) of `harnessx/benchmarks/`
that names it `BENCHMARK`; `harnessx.benchmarks.registry` finds it there, so adding a benchmark edits
no other file. The core (`envs/registry`, the CLI, `report/`, the simulator, the viewer) asks the
registry and never names a benchmark.

What a benchmark declares (class attributes, read without running any of its code):

- `name`: its key; tasks it scores carry `metadata["benchmark"] = name` (no key: `asa`).
- `suites`: the environment suites it provides, `{suite name: "module:Class"}`; `--env <suite>` finds
  them everywhere (`search`, `eval`, `compare`, `probe`, `tasks`, `view`).
- `data`: its data options (`DataOption`): `--data KEY=VALUE` on every command that opens a suite,
  checked here and handed to the suite as a constructor keyword (recorded with the run's suite options).
- `suite_options`: the shared suite flags its suites also take (e.g. `sandbox` for `--sandbox`).
- `cli` and `help`: a module whose `register(app)` adds the command group `harnessx <name>`, and that
  group's one-line help (the root help lists it without importing the module).
- `simulator`: a module of simulated-agent hooks (`harnessx.sim.hooks` says what it provides).
- `implementation`: `"module:Class"` of the object that scores, when that code is heavy (it imports
  LiteLLM, the environments...): the scoring hooks below delegate to it, imported on first use, so
  listing benchmarks (the CLI's help, the suite names) stays cheap.

What the core calls (methods; each has a default, so a benchmark overrides only what it has):

- `objectives`: the search objectives it declares (names unique across benchmarks); their names are
  also the class attribute `objective_names`, which the CLI checks `--objective` against without
  importing the scoring (a contract test holds the two equal).
- `headline`: the metrics a search summarises per round and in its provenance (Scorecard rate names
  or keys of the per-trial `values`), in order.
- `score(task, trajectory, result, judge)`: one trial. It never sees an excluded rollout:
  `registry.score_trial` names an environment or model failure, a tampered rollout (a result that
  disagrees with its hash-chained trajectory) and an invalid task before any benchmark is called. It
  may still mark a trial invalid for a reason of its own (a judge failure, an unparseable answer).
- `judge_name(task, judge)`: the judge it scores `task` with (recorded on an excluded trial too).
- `metrics(scores, tasks)`: its aggregate metrics, each with its valid n and an interval.
- `evaluation_values(scores, tasks)`: per-trial values that depend on the whole evaluation (a metric
  that is not a mean of per-trial values, decomposed so their mean over the evaluation is it).
- `compare_tables(block, n_resamples)`: its own tables for one split of `harnessx compare`.
- `summary_rows(card)` and `summary_extra_rows(*cards)`: how `harnessx search` labels its summary.

The module of a benchmark must import nothing heavy at module level: the registry imports every
benchmark module to list them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from harnessx.errors import InputError

if TYPE_CHECKING:
    from harnessx.agent.result import RolloutResult
    from harnessx.formatting.table import Table
    from harnessx.scoring.judges import Judge
    from harnessx.scoring.objective import Objective
    from harnessx.scoring.task_score import TaskScore
    from harnessx.tasks import Task
    from harnessx.trajectory import Trajectory


def load(target: str) -> Any:
    """The attribute a `"module:attr"` string names, imported now."""
    module_name, attr = target.split(":")
    return getattr(importlib.import_module(module_name), attr)


@dataclass(frozen=True)
class DataOption:
    """One data option: `--data KEY=VALUE` becomes the keyword `option` of the benchmark's `suites`.

    `kind` is "path" (an existing file or folder, passed on resolved), "dir" (an existing folder) or
    "text". `alias` is the per-benchmark flag that sets the same option (e.g. `--kaware-dir`)."""

    key: str
    option: str
    help: str
    kind: str = "path"
    alias: str | None = None

    def parse(self, value: str) -> str:
        """The value the suite receives; bad input is one InputError naming the option."""
        if self.kind == "text":
            if not value.strip():
                raise InputError("--data", f"{self.key}: empty value", self.help)
            return value
        path = Path(value).expanduser()
        if not path.exists():
            raise InputError("--data", f"{self.key}: no such file or folder {value!r}", self.help)
        if self.kind == "dir" and not path.is_dir():
            raise InputError("--data", f"{self.key}: {value!r} is not a folder", self.help)
        return str(path.resolve())


class Benchmark:
    """The base of every benchmark: see the module docstring for what each attribute and hook means."""

    name: ClassVar[str] = ""
    help: ClassVar[str] = ""
    suites: ClassVar[dict[str, str]] = {}
    data: ClassVar[tuple[DataOption, ...]] = ()
    objective_names: ClassVar[tuple[str, ...]] = ()  # the keys of `objectives`, read without importing them
    suite_options: ClassVar[tuple[str, ...]] = ()  # shared CLI suite options its suites take (e.g. "sandbox")
    cli: ClassVar[str | None] = None
    simulator: ClassVar[str | None] = None
    implementation: ClassVar[str | None] = None

    _impl_cache: Any = None

    def impl(self) -> Any:
        """The `implementation` object (imported and built once), or None."""
        if self.implementation is None:
            return None
        if self._impl_cache is None:
            self._impl_cache = load(self.implementation)()
        return self._impl_cache

    @property
    def objectives(self) -> dict[str, Objective]:
        impl = self.impl()
        return dict(impl.objectives) if impl is not None else {}

    @property
    def headline(self) -> tuple[str, ...]:
        impl = self.impl()
        return tuple(impl.headline) if impl is not None else ()

    def judge_name(self, task: Task, judge: Judge | None) -> str:
        impl = self.impl()
        if impl is not None:
            return impl.judge_name(task, judge)
        return judge.name if judge is not None else ""

    def score(self, task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None) -> TaskScore:
        """One valid trial: its gates and `values`, or invalid for a reason of the benchmark's own."""
        impl = self.impl()
        if impl is None:
            raise NotImplementedError(f"benchmark {self.name!r} declares no score()")
        return impl.score(task, trajectory, result, judge)

    def metrics(self, scores: list[TaskScore], tasks: list[Task]) -> dict[str, Any]:
        """The aggregate metrics, each with its valid n and an interval (JSON-able)."""
        impl = self.impl()
        return impl.metrics(scores, tasks) if impl is not None else {}

    def evaluation_values(self, scores: list[TaskScore], tasks: list[Task]) -> list[TaskScore]:
        """`scores` (this benchmark's and others', in order) with evaluation-level values added to its own
        trials; by default unchanged."""
        return scores

    def compare_tables(self, block: dict, n_resamples: int) -> list[Table]:
        """Its own tables for one split of a comparison: empty when the block holds none of its values."""
        impl = self.impl()
        return impl.compare_tables(block, n_resamples) if impl is not None else []

    def summary_rows(self, card: dict) -> dict[str, str] | None:
        """`harnessx search`'s R0-vs-selected rate rows ({scorecard key: label}) when this benchmark's
        values are in the scorecard and it relabels them; None keeps the default rows."""
        return None

    def summary_extra_rows(self, *cards: dict) -> list[tuple[Callable[[dict], str], str]]:
        """Extra summary rows (a cell function of a scorecard, a label) when every card holds its values."""
        return []
