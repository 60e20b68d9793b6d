"""Scoring: the M0–M3 ladder with authorship gating, judges, rates and scorecards (digest §1.3–1.6).

Each name is imported from its module on first use, so a reader of stored scores (the viewer, the
comparison of two runs) does not load the LLM judge, and the model client with it."""

from __future__ import annotations

from harnessx.lazy_exports import lazy_exports

_WHERE = {"DeterministicJudge": "judges", "Judge": "judges", "Verdict": "judges", "LLMJudge": "llm_judge",
          "Rate": "rate", "score_rollout": "score", "Scorecard": "scorecard", "TaskScore": "task_score"}
__all__ = sorted(_WHERE)

__getattr__ = lazy_exports(__name__, _WHERE)
