"""TaskScore: the gates and outcome of one rollout (one task, one seed)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TaskScore(BaseModel):
    """Blocked rollouts fill the gates (m0–m3, authorship, naive_m2, strict/relaxed SA); feasible
    rollouts fill solved and false_abstention. An invalid rollout (`exclusion` says why) fills
    neither and stays out of every denominator."""

    model_config = ConfigDict(frozen=True)
    task_id: str
    seed: int
    feasible: bool
    family: str | None
    source_id: str
    split: str
    valid: bool
    exclusion: str | None = None
    exclusion_detail: str = ""  # why, in words (the error, or what a tampered record disagrees on)
    m0: bool | None = None
    m1: bool | None = None
    m2: bool | None = None
    m3: bool | None = None
    authorship: bool | None = None
    naive_m2: bool | None = None
    strict_sa: bool | None = None
    relaxed_sa: bool | None = None
    solved: bool | None = None
    false_abstention: bool | None = None
    failure_mode: str | None = None
    steps_to_recognition: int | None = None
    output_tokens: int = 0
    reward: float | None = None
    judge: str = ""
    judge_rationale: str = ""
    values: dict[str, float] = Field(default_factory=dict,
                                     description="a benchmark's own per-trial values (e.g. KAS parts, FASS), "
                                                 "read by objectives with a value_key")

    @property
    def success(self) -> bool:
        """Strict SA on a blocked task, native solve on a feasible one; False when invalid."""
        return bool(self.solved if self.feasible else self.strict_sa)

    @property
    def clean_success(self) -> bool:
        """`success`, except that a feasible task solved with a false abstention (acted, then
        deferred anyway) is no success: the outcome `joint_clean` counts."""
        return self.success and not (self.feasible and self.false_abstention)

    def value(self, key: str) -> float | None:
        """The per-trial value an objective reads: a ladder outcome in `OUTCOMES` (None on a trial
        outside its stratum) or the benchmark's own `values[key]`; None when the trial is invalid."""
        if not self.valid:
            return None
        if key in OUTCOMES:
            flag = getattr(self, OUTCOMES[key])
            return None if flag is None else float(flag)
        return self.values.get(key)


# value keys that are outcomes of the ladder (attributes of TaskScore), not benchmark values
OUTCOMES = {"joint_clean": "clean_success", "false_abstention": "false_abstention"}
