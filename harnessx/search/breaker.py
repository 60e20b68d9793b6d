"""The circuit breaker: a search stops cleanly (and stays resumable) when the model keeps failing.

A model failure is excluded from scoring, so a search that kept going through an outage would pay
for rollouts that can never count. After `threshold` consecutive model-failure rollouts the breaker
trips: the rollout that tripped it raises `ModelOutage`, and so does every later one, so the search
stops at the round it was in. The failed rollouts are not cached, so `--resume` runs them again.
"""

from __future__ import annotations

from harnessx.agent.result import RolloutResult
from harnessx.agent.runner import Runner
from harnessx.errors import HarnessXError

DEFAULT_THRESHOLD = 5


class ModelOutage(HarnessXError):
    """The model failed on `threshold` rollouts in a row: the search stops; --resume continues it."""


class CircuitBreaker:
    def __init__(self, threshold: int = DEFAULT_THRESHOLD):
        if threshold < 1:
            raise ValueError("threshold must be at least 1")
        self.threshold = threshold
        self.consecutive = 0
        self.failures = 0
        self.last_error = ""
        self.tripped = False

    def observe(self, result: RolloutResult, runner: Runner | None = None) -> None:
        """Count one finished rollout; raise ModelOutage once `threshold` model failures ran in a row."""
        if result.status == "model_failure":
            self.consecutive += 1
            self.failures += 1
            self.last_error = _error(result, runner) or self.last_error
        elif not self.tripped:
            self.consecutive = 0
        if self.consecutive >= self.threshold:
            self.tripped = True
        if self.tripped:
            raise ModelOutage(self.message())

    def message(self) -> str:
        last = f"; last error: {self.last_error}" if self.last_error else ""
        return (f"the model failed on {self.consecutive} rollouts in a row ({self.failures} model failures in "
                f"all){last}")


def _error(result: RolloutResult, runner: Runner | None) -> str:
    if runner is None:
        return ""
    try:
        errors = runner.trajectory(result).of_kind("error")
    except (KeyError, OSError):
        return ""
    return str(errors[-1].data.get("detail", ""))[:300] if errors else ""
