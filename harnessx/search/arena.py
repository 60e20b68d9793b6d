"""The arena: where a search evaluates harnesses on the search split, within its budget.

Every evaluation uses the same seeds, so challenger and incumbent are paired task by task, and
the rollout cache makes a repeated (harness, task, seed) free. The arena counts the distinct
rollouts the search has used and their cost, and refuses an evaluation that would break a cap.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from harnessx.agent.result import RolloutResult
from harnessx.agent.keys import rollout_key
from harnessx.agent.runner import Runner
from harnessx.errors import HarnessXError, InputError
from harnessx.evaluation import Evaluation, evaluate
from harnessx.harness import Harness
from harnessx.models.quiet import flush_logging
from harnessx.scoring import Judge
from harnessx.search.objectives import Objective
from harnessx.tasks import Task


class BudgetExhausted(HarnessXError):
    """The next evaluation would exceed --max-rollouts or --max-cost."""


class RuleArena(Protocol):
    """What an acceptance rule may read and call on the arena it is handed (the `Arena` below provides
    all of it); a rule uses nothing else and probes for nothing. tests/test_contracts_rules.py checks
    every registered rule against this list."""

    objective: Objective
    tasks: list[Task]   # the search split in the arena's stratified order (blocked and feasible interleaved)
    seeds: list[int]
    round: int          # the round being judged (a rule may rotate its tasks by it)

    def prefix(self, n: int) -> list[Task]: ...

    def rotated(self, offset: int) -> list[Task]: ...

    def paid(self, harness: Harness) -> int: ...

    def paid_tasks(self, harness: Harness) -> list[Task]: ...

    async def evaluate(self, harness: Harness, n_tasks: int | None = None) -> Evaluation: ...

    async def evaluate_on(self, harness: Harness, tasks: list[Task], seeds: list[int] | None = None) -> Evaluation: ...


RULE_ARENA = tuple(dict.fromkeys(name for name in (*RuleArena.__annotations__, *vars(RuleArena))
                                 if not name.startswith("_")))  # the members of RuleArena, by name


class Arena:
    def __init__(self, runner: Runner, tasks: list[Task], objective: Objective, seeds: list[int], *,
                 judge: Judge | None = None, max_rollouts: int | None = None, max_cost: float | None = None,
                 order_seed: int = 0, on_rollout: Callable[[RolloutResult], None] | None = None):
        self.runner, self.objective, self.seeds, self.judge = runner, objective, list(seeds), judge
        self.tasks = _interleave(objective.tasks(tasks), order_seed)
        self.max_rollouts, self.max_cost = max_rollouts, max_cost
        self.on_rollout = on_rollout
        self.spent: dict[str, float] = {}  # rollout key -> cost (USD)
        self._memo: dict[tuple[str, tuple[str, ...]], Evaluation] = {}
        self._pending: set[str] = set()
        self.round = 0  # the round being judged (set by the search loop); a rule may rotate its tasks by it

    @property
    def rollouts(self) -> int:
        return len(self.spent)

    @property
    def cost(self) -> float:
        return sum(self.spent.values())

    def prefix(self, n: int) -> list[Task]:
        """The first n tasks in the arena's stratified order (blocked and feasible interleaved)."""
        return self.tasks[: max(1, min(n, len(self.tasks)))]

    def rotated(self, offset: int) -> list[Task]:
        """The stratified order started `offset` tasks in (rounded down to a whole blocked-feasible pair,
        so every prefix stays balanced) and wrapped around."""
        n = len(self.tasks)
        k = (offset - offset % 2) % n if n else 0
        return self.tasks[k:] + self.tasks[:k]

    def paid(self, harness: Harness) -> int:
        """How many leading tasks (every seed) this search already has rollouts of for `harness`."""
        return next((i for i, task in enumerate(self.tasks) if not self._has(harness, task)), len(self.tasks))

    def paid_tasks(self, harness: Harness) -> list[Task]:
        """The tasks (in the arena's order) this search already has rollouts of for `harness`, every seed."""
        return [t for t in self.tasks if self._has(harness, t)]

    def evaluations_of(self, harness: Harness) -> list[Evaluation]:
        """Every evaluation of `harness` this search ran on the default seeds (its rungs), fewest tasks first."""
        found = [e for (h, *rest), e in self._memo.items() if h == harness.hash and len(rest) == 1]
        return sorted(found, key=lambda e: len(e.tasks))

    def _has(self, harness: Harness, task: Task) -> bool:
        return self._keys(harness, [task]) <= self.spent.keys()

    def _keys(self, harness: Harness, tasks: list[Task], seeds: list[int] | None = None) -> set[str]:
        return {rollout_key(harness, t, s, self.runner.model_id) for t in tasks for s in seeds or self.seeds}

    async def evaluate(self, harness: Harness, n_tasks: int | None = None) -> Evaluation:
        """Evaluate on the first `n_tasks` tasks (all by default) × every seed."""
        return await self.evaluate_on(harness, self.prefix(n_tasks or len(self.tasks)))

    async def evaluate_on(self, harness: Harness, tasks: list[Task], seeds: list[int] | None = None) -> Evaluation:
        """Evaluate on the given search tasks × every seed (or the `seeds` given; memoised, budgeted)."""
        seeds = list(seeds) if seeds is not None else self.seeds
        memo_key = (harness.hash, tuple(t.id for t in tasks)) + ((tuple(seeds),) if seeds != self.seeds else ())
        if memo_key in self._memo:
            return self._memo[memo_key]
        new = self._keys(harness, tasks, seeds) - self.spent.keys() - self._pending
        self._check_budget(len(new))
        self._pending |= new  # evaluations run concurrently: reserve before awaiting

        def seen(result: RolloutResult) -> None:
            fresh = result.key not in self.spent
            self.spent[result.key] = result.usage.cost_usd
            if fresh and self.on_rollout:
                self.on_rollout(result)

        try:
            evaluation = await evaluate(self.runner, harness, tasks, seeds, self.judge, progress=seen)
        finally:
            self._pending -= new
        await flush_logging()  # nothing of this loop's LiteLLM logging is carried into GEPA's loops
        self._memo[memo_key] = evaluation
        return evaluation

    def _check_budget(self, new: int) -> None:
        committed = self.rollouts + len(self._pending)
        if self.max_rollouts is not None and committed + new > self.max_rollouts:
            raise BudgetExhausted(f"--max-rollouts {self.max_rollouts}: {committed} used or running, the next "
                                  f"evaluation needs {new} more")
        per_rollout = self.cost / self.rollouts if self.rollouts else 0.0
        if self.max_cost is not None and self.cost + new * per_rollout > self.max_cost:
            raise BudgetExhausted(f"--max-cost {self.max_cost}: ${self.cost:.4f} spent, the next evaluation "
                                  f"would cost about ${new * per_rollout:.4f} more")


def _interleave(tasks: list[Task], seed: int) -> list[Task]:
    """A seeded shuffle per stratum, then alternate strata, so every prefix is balanced."""
    rng = random.Random(seed)
    strata: dict[str, list[Task]] = {}
    for task in sorted(tasks, key=lambda t: t.id):
        strata.setdefault(task.stratum, []).append(task)
    for group in strata.values():
        rng.shuffle(group)
    out: list[Task] = []
    groups = [strata[k] for k in sorted(strata)]
    for i in range(max((len(g) for g in groups), default=0)):
        out.extend(g[i] for g in groups if i < len(g))
    return out


def check_budget_buys_r0(max_rollouts: int | None, r0_rollouts: int) -> None:
    """A --max-rollouts that cannot pay for R0 is refused before the run directory exists."""
    if max_rollouts is not None and max_rollouts < r0_rollouts:
        raise InputError("--max-rollouts", f"{max_rollouts} cannot pay for R0, which needs {r0_rollouts} rollouts",
                         f"at least {r0_rollouts}")
