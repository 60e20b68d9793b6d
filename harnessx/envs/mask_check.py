"""Masked twins (FeasiGen's critical-tool masking), what needs no agent: the mechanical check and the
evidence and `query_grounded` flag of a twin. Environments that build twins themselves (the MCP
suite) and the FeasiGen benchmark (harnessx/feasigen/) both use it.

The mechanical check of a masked task: replay the original's gold actions in the masked
environment (masked calls are refused, the rest run) and score the original goal.

A task passes when the goal is *not* reached, i.e. no remaining tool performed the masked
operation on that task: reward < 1 with the environment's `verify_goal` hook. A control comes
first: the same gold actions on the unmasked original must reach the goal, or the check cannot
tell a mask from a replay that fails anyway, and the task does not pass. Multi-turn references
(`reference.turns`: calls per user turn) are replayed turn by turn, the environment's user
advancing between turns. The replay also records what each gold action returned.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from harnessx.envs.base import MASKED_TOOLS, AbandonSpec, Suite
from harnessx.tasks import Evidence, Task


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    reward: float | None
    refused: list[str] = field(default_factory=list)  # gold calls the mask refused
    error: str | None = None                          # not checked: the environment failed, or no control

    def to_dict(self) -> dict:
        return asdict(self)


def _turn_ends(task: Task) -> set[int]:
    turns = getattr(task.reference, "turns", None) or []
    ends, total = set(), 0
    for count in turns[:-1]:
        total += count
        ends.add(total)
    return ends


async def replay(suite: Suite, task: Task) -> tuple[float, list[str], list[bool]]:
    """Run the task's gold actions in a fresh episode: (reward, observations, error flags)."""
    env = suite.make_env()
    ends = _turn_ends(task)
    try:
        await env.reset(task, AbandonSpec(mode="none"))
        observations, errors = [], []
        for i, action in enumerate(task.reference.actions):
            while i in ends:  # the next user turn (an empty turn ends at the same index)
                ends.discard(i)
                await env.user_reply("")
            outcome = await env.execute(action)
            observations.append(outcome.observation)
            errors.append(outcome.error)
        return await env.verify(), observations, errors
    finally:
        await env.cleanup()


async def mechanical_check(suite: Suite, infeasible: Task, original: Task | None = None) -> CheckResult:
    """Pass iff the gold replay reaches the goal on `original` (the control, when given) and not
    under the mask."""
    masked = set(infeasible.metadata.get(MASKED_TOOLS) or ())
    try:
        if original is not None and (control := (await replay(suite, original))[0]) < 1.0:
            return CheckResult(False, None, error=f"control: the gold replay on the unmasked original scores "
                                                  f"{control}, so the check cannot decide")
        reward, observations, _ = await replay(suite, infeasible)
    except Exception as exc:  # noqa: BLE001 - an environment that cannot run is recorded, never a pass
        return CheckResult(False, None, error=f"{type(exc).__name__}: {exc}"[:500])
    refused = [a.name for a, obs in zip(infeasible.reference.actions, observations)
               if a.name in masked and "is not available" in obs]
    return CheckResult(reward < 1.0, reward, refused)


def prompt_text(task: Task) -> str:
    return task.instruction + "\n" + json.dumps(task.user_scenario, default=str)


def _values(obj) -> list[str]:
    if isinstance(obj, dict):
        return [v for x in obj.values() for v in _values(x)]
    if isinstance(obj, list):
        return [v for x in obj for v in _values(x)]
    return [str(obj)] if isinstance(obj, (str, int, float)) and not isinstance(obj, bool) and str(obj) else []


def query_grounded(task: Task, masked: set[str], observations: list[str]) -> list[str]:
    """Flags for masked calls of the gold plan whose answer the prompt already gives.

    `observations[i]` is what gold action i returned on the unmasked environment.
    """
    actions, prompt, flags = task.reference.actions, prompt_text(task), []
    for i, action in enumerate(actions):
        if action.name not in masked or i >= len(observations) or observations[i].startswith("Error"):
            continue
        result = observations[i]
        later = {v for a in actions[i + 1:] for v in _values(a.arguments)} - set(_values(action.arguments))
        answer = {v for v in later if len(v) >= 3 and v in result}
        if not result.lstrip().startswith(("{", "[")) and len(result) <= 80:
            answer.add(result.strip())
        if answer and all(v in prompt for v in answer):
            flags.append(f"query_grounded: {action.name}'s answer ({', '.join(sorted(answer))}) is in the prompt")
    return sorted(set(flags))


def evidence_of(task: Task, critical: list[str]) -> Evidence:
    """The offered tool list shows the mask from the start (spec); on a multi-turn task
    (`reference.turns`) the blocker shows at the first user turn whose gold calls need a masked tool."""
    turns = getattr(task.reference, "turns", None)
    if not turns:
        return Evidence(where="spec")
    start = 0
    for turn, count in enumerate(turns):
        if any(a.name in critical for a in task.reference.actions[start:start + count]):
            return Evidence(where="observation", turn=turn)
        start += count
    return Evidence(where="observation", turn=0)
