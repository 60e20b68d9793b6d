"""What one search runs, in four parts, each validated once when it is made:

- `RunConfig` — what is searched and how it is judged: objective, environment, model, proposer,
  acceptance rule, seeds, search space, name. These (with the budget) are the run's identity.
- `BudgetConfig` — how much: rounds, proposals per round, hard caps on rollouts and cost.
- `ExecutionConfig` — where rollouts run: executor, concurrency, workers, Ray address. Not part of the
  run's identity: a rollout's result does not depend on where it ran.
- `TrackingConfig` — where the run is recorded: runs directory, Optuna storage, MLflow.

`SearchConfig` nests the four, as a launcher nests its parts. A bad value is an `InputError` naming
the command-line flag and the value expected. Kept in its own module so that the parts of the search
(the loop, its executor set-up) can read it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from harnessx.agent.sampling import epoch_seeds
from harnessx.envs.registry import DEFAULT_ENV
from harnessx.errors import InputError, one_of
from harnessx.executors import EXECUTORS
from harnessx.models.defaults import DEFAULT_MODEL
from harnessx.search.names import DEFAULT_PROPOSER, DEFAULT_RULE, rounds_limit
from harnessx.search.uris import DEFAULT_MLFLOW_URI

DEFAULT_TRACES = 10  # rollouts per candidate logged as MLflow traces, failing ones first


def _at_least(flag: str, value: float | None, low: float, expected: str) -> None:
    if value is not None and value < low:
        raise InputError(flag, f"got {value!r}", expected)


@dataclass
class RunConfig:
    objective: str = "joint"
    env: str = DEFAULT_ENV
    model: str = DEFAULT_MODEL
    api_base: str | None = None
    proposer: str = DEFAULT_PROPOSER
    meta_model: str | None = None
    meta_api_base: str | None = None  # OpenAI-compatible server of the meta-model (e.g. harnessx local serve)
    accept: str = DEFAULT_RULE
    accept_options: dict[str, Any] = field(default_factory=dict)  # the rule's settings (--accept-option), e.g. confirm
    alpha: float = 0.05
    epochs: int = 1
    seed: int = 0
    space: str = "default"
    name: str | None = None
    suite_options: dict[str, Any] = field(default_factory=dict)  # e.g. tau2_dir, tasks_dir, sandbox
    sources: int = 0  # only the first N sources of the search split (0 = all)
    task_ids: list[str] = field(default_factory=list)  # only these task or source ids
    temperature: float = 0.0  # the task agent's default sampling (a harness switch overrides it)
    top_p: float | None = None
    reasoning_effort: str | None = None  # low/medium/high or a thinking budget (a harness switch overrides it)

    def __post_init__(self) -> None:
        _at_least("--epochs", self.epochs, 1, "an integer >= 1")
        _at_least("--seed", self.seed, 0, "an integer >= 0")
        _at_least("--sources", self.sources, 0, "an integer >= 0 (0 = all)")
        if not 0.0 < self.alpha < 1.0:
            raise InputError("--alpha", f"got {self.alpha!r}", "a probability strictly between 0 and 1")
        if not 0.0 <= self.temperature <= 2.0:
            raise InputError("--temperature", f"got {self.temperature!r}", "a number from 0 to 2")
        if self.top_p is not None and not 0.0 <= self.top_p <= 1.0:
            raise InputError("--top-p", f"got {self.top_p!r}", "a number from 0 to 1")

    @property
    def run_name(self) -> str:
        return self.name or f"{self.objective}-{self.env.replace(':', '.')}"  # an import path: no colon in a folder name

    @property
    def seeds(self) -> list[int]:
        return epoch_seeds(self.seed, self.epochs)


@dataclass
class BudgetConfig:
    """How much a search spends. The budget (`max_rollouts`, `max_cost`) is the primary control: with
    one and no `rounds`, the search runs as many rounds as the budget pays for, so how many candidates
    it looks at comes from the budget (`rounds_limit`). `rounds` given: at most that many."""

    rounds: int | None = None
    proposals: int = 3
    max_rollouts: int | None = None
    max_cost: float | None = None

    def __post_init__(self) -> None:
        _at_least("--rounds", self.rounds, 0, "an integer >= 0")
        _at_least("--proposals", self.proposals, 1, "an integer >= 1")
        _at_least("--max-rollouts", self.max_rollouts, 1, "an integer >= 1")
        _at_least("--max-cost", self.max_cost, 0.0, "a cost in USD >= 0")

    @property
    def budgeted(self) -> bool:
        """Rounds come from the budget: a budget and no --rounds."""
        return self.rounds is None and (self.max_rollouts is not None or self.max_cost is not None)

    @property
    def rounds_limit(self) -> int:
        """The most rounds the loop runs: --rounds, else the budget's ceiling, else DEFAULT_ROUNDS."""
        return rounds_limit(self.rounds, self.budgeted)


@dataclass
class ExecutionConfig:
    executor: str = "asyncio"  # where rollouts run: asyncio | ray | queue (not part of the run's identity)
    concurrency: int = 8
    workers: int | None = None  # ray: actors; queue: rollouts this process runs itself
    ray_address: str | None = None

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise InputError("--executor", f"unknown executor {self.executor!r}", one_of(EXECUTORS))
        _at_least("--concurrency", self.concurrency, 1, "an integer >= 1")
        _at_least("--workers", self.workers, 0, "an integer >= 0")
        if self.ray_address and self.executor != "ray":
            raise InputError("--ray-address", f"applies to --executor ray, not {self.executor!r}")


@dataclass
class TrackingConfig:
    runs_dir: str = "runs"
    storage: str | None = None
    tracking_uri: str | None = DEFAULT_MLFLOW_URI
    mlflow_traces: int = DEFAULT_TRACES  # rollouts per candidate logged as MLflow traces (-1 = all, 0 = none)

    def __post_init__(self) -> None:
        _at_least("--mlflow-traces", self.mlflow_traces, -1, "an integer >= -1 (-1 = all, 0 = none)")


PARTS = {"run": RunConfig, "budget": BudgetConfig, "execution": ExecutionConfig, "tracking": TrackingConfig}


@dataclass
class SearchConfig:
    run: RunConfig = field(default_factory=RunConfig)
    budget: BudgetConfig = field(default_factory=BudgetConfig)
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)

    def __post_init__(self) -> None:
        if self.execution.executor == "queue" and not self.tracking.storage:
            raise InputError("--executor queue", "needs --storage", "an Optuna RDB URL such as postgresql://…")

    @classmethod
    def of(cls, **options: Any) -> "SearchConfig":
        """A config from the parts' field names, each routed to its part (`rounds=2` to the budget)."""
        return cls().replaced(**options)

    def replaced(self, **options: Any) -> "SearchConfig":
        """A copy with these fields (of any part, by name) changed; each changed part is validated again."""
        owner = {f.name: part for part, kind in PARTS.items() for f in fields(kind)}
        unknown = sorted(set(options) - set(owner))
        if unknown:
            raise TypeError(f"SearchConfig: no part has the field(s) {', '.join(unknown)}")
        changed = {part for part in (owner[k] for k in options)}
        return replace(self, **{part: replace(getattr(self, part), **{k: v for k, v in options.items() if owner[k] == part})
                                for part in changed})

    @property
    def run_name(self) -> str:
        return self.run.run_name

    @property
    def seeds(self) -> list[int]:
        return self.run.seeds
