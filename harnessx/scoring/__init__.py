"""Scoring: the M0–M3 ladder with authorship gating, judges, rates and scorecards (digest §1.3–1.6)."""

from harnessx.scoring.judges import DeterministicJudge, Judge, Verdict
from harnessx.scoring.llm_judge import LLMJudge
from harnessx.scoring.rate import Rate
from harnessx.scoring.score import score_rollout
from harnessx.scoring.scorecard import Scorecard
from harnessx.scoring.task_score import TaskScore

__all__ = ["DeterministicJudge", "Judge", "LLMJudge", "Rate", "Scorecard", "TaskScore", "Verdict", "score_rollout"]
