"""What one search runs: its objective, environment, model, rules, budget and where it runs.

Kept in its own module so that the parts of the search (the loop, its executor set-up) can read
it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harnessx.agent.sampling import epoch_seeds
from harnessx.envs.registry import DEFAULT_ENV
from harnessx.models.client import DEFAULT_MODEL
from harnessx.search.tracking import DEFAULT_MLFLOW_URI

DEFAULT_TRACES = 10  # rollouts per candidate logged as MLflow traces, failing ones first


@dataclass
class SearchConfig:
    objective: str = "joint"
    env: str = DEFAULT_ENV
    model: str = DEFAULT_MODEL
    api_base: str | None = None
    proposer: str = "bandit"  # harnessx/search/proposers: DEFAULT_PROPOSER
    meta_model: str | None = None
    accept: str = "default"  # harnessx/search/explore.py (harnessx/search/rules.py: DEFAULT_RULE)
    rounds: int = 8
    proposals: int = 3
    epochs: int = 1
    seed: int = 0
    space: str = "default"
    alpha: float = 0.05
    name: str | None = None
    runs_dir: str = "runs"
    storage: str | None = None
    tracking_uri: str | None = DEFAULT_MLFLOW_URI
    mlflow_traces: int = DEFAULT_TRACES  # rollouts per candidate logged as MLflow traces (-1 = all, 0 = none)
    max_rollouts: int | None = None
    max_cost: float | None = None
    concurrency: int = 8
    executor: str = "asyncio"          # where rollouts run: asyncio | ray | queue (not part of the run's identity)
    ray_address: str | None = None
    workers: int | None = None         # ray: actors; queue: rollouts this process runs itself
    suite_options: dict[str, Any] = field(default_factory=dict)  # e.g. tau2_dir, tasks_dir, sandbox
    sources: int = 0  # only the first N sources of the search split (0 = all)
    task_ids: list[str] = field(default_factory=list)  # only these task or source ids
    temperature: float = 0.0  # the task agent's default sampling (a harness switch overrides it)
    top_p: float | None = None
    meta_api_base: str | None = None  # OpenAI-compatible server of the meta-model (e.g. harnessx local serve)

    @property
    def run_name(self) -> str:
        return self.name or f"{self.objective}-{self.env}"

    @property
    def seeds(self) -> list[int]:
        return epoch_seeds(self.seed, self.epochs)
