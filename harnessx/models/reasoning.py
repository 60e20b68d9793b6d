"""Reasoning effort of a task agent's model calls: LiteLLM's `reasoning_effort` or a thinking budget.

A setting is a level (`minimal`, `low`, `medium`, `high`: LiteLLM's `reasoning_effort`, which it maps
to each provider's own option) or a whole number of tokens (a thinking budget: LiteLLM's
`thinking={"type": "enabled", "budget_tokens": N}`). Unset, no option is sent, and neither the
rollout key nor the harness hash mentions it.
"""

from __future__ import annotations

from typing import Any

from harnessx.errors import one_of

LEVELS = ("minimal", "low", "medium", "high")
MIN_BUDGET = 1024  # the smallest thinking budget providers accept (Anthropic's floor)
EXPECTED = f"{one_of(LEVELS)}, or a thinking budget in tokens (an integer >= {MIN_BUDGET})"


def check_reasoning_effort(value: str | int | None) -> str | None:
    """The setting in its one spelling (`high`, `2048`), or a ValueError that says what is expected."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in LEVELS:
        return text
    if text.isdigit() and int(text) >= MIN_BUDGET:
        return str(int(text))
    raise ValueError(f"{value!r} is not a reasoning effort; expected {EXPECTED}")


def reasoning_params(value: str | None) -> dict[str, Any]:
    """The LiteLLM completion options for a setting (none when unset)."""
    if value is None:
        return {}
    if value.isdigit():
        return {"thinking": {"type": "enabled", "budget_tokens": int(value)}, "allowed_openai_params": ["thinking"]}
    return {"reasoning_effort": value, "allowed_openai_params": ["reasoning_effort"]}
