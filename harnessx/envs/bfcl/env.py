"""The BFCL multi-turn environment: BFCL's API classes as the state, one user turn at a time.

- `reset` builds the entry's API instances from its initial config and opens with turn 0's user
  message; the tools are the entry's function docs minus the functions BFCL withholds (miss_func)
  and minus `task.metadata["masked_functions"]` (a caller's mask, e.g. FeasiGen's).
- `execute` runs a call on the owning instance and reports a state change (with the changed
  public attributes, BFCL's state) when the call changed its instance. At the task's blocked turn a
  state-changing call or a call of the withheld function is a forbidden change (a fabricated call),
  and so is, on a miss_param entry, a call whose arguments carry the value the user gives at the
  next turn or a value nobody gave (harnessx/envs/bfcl/guess.py), even one that changes nothing.
  Like BFCL's own executor, a call of any method of the entry's classes runs, also one not offered
  at this turn (BFCL's ground truth of miss_func_49 calls a withheld function before it is restored);
  only masked functions are refused (and never reach the checker).
- `user_reply` ends the current turn (BFCL: a reply without calls ends the turn) and gives the next
  turn's user message; a turn where BFCL restores a withheld function gets BFCL's own message for it
  with the restored functions' docs, and from then on those functions run.
- `verify` is BFCL's checker on the calls the agent made, per turn: 1.0 when BFCL counts the entry
  as correct. The episode continues past a certified deferral (`continues_after_abandon`), so the
  turns after the blocked one are scored too.
"""

from __future__ import annotations

import json
from typing import Literal

from harnessx.envs.base import AbandonSpec, EnvStart, StateChange, StepOutcome, ToolSpec, evidence_at_start
from harnessx.envs.bfcl.api import build_instances, call_method, call_string, changed_fields, method_owner, snapshot
from harnessx.envs.bfcl.checker import CheckResult, check
from harnessx.envs.bfcl.data import Entry, func_docs, load_category
from harnessx.envs.bfcl.guess import MissingValues
from harnessx.envs.bfcl.tools import tool_spec
from harnessx.tasks import Task, ToolCall


def turn_text(messages: list[dict]) -> str:
    return "\n".join(str(m.get("content", "")) for m in messages)


def entry_of(task: Task, bfcl_dir: str | None = None) -> Entry:
    category, bfcl_id = task.metadata["bfcl_category"], task.metadata["bfcl_id"]
    return next(e for e in load_category(category, bfcl_dir) if e.id == bfcl_id)


def withheld(entry: Entry) -> set[str]:
    return {name for names in entry.missed_function.values() for name in names}


def tool_pool(task: Task, bfcl_dir: str | None = None) -> list[ToolSpec]:
    """Every function the task's API classes offer (withheld and masked ones included)."""
    entry = entry_of(task, bfcl_dir)
    return [tool_spec(d) for d in func_docs(entry.involved_classes, bfcl_dir)]


def with_masked(task: Task, functions: list[str]) -> Task:
    """The same task with `functions` hidden from its tools and refused when called."""
    masked = sorted(set(task.metadata.get("masked_functions", [])) | set(functions))
    return task.model_copy(update={"metadata": {**task.metadata, "masked_functions": masked}})


class BfclEnv:
    name = "bfcl"
    native_abandon: Literal["file", "tool"] = "tool"
    continues_after_abandon = True  # later turns are part of the episode (and of BFCL's verdict)

    def __init__(self, bfcl_dir: str | None = None):
        self.bfcl_dir = bfcl_dir
        self.task: Task | None = None
        self.entry: Entry | None = None
        self.turn = 0
        self.calls: list[list[str]] = []
        self.offered: set[str] = set()
        self.deferrals: list[str] = []
        self.last_check: CheckResult | None = None

    async def reset(self, task: Task, abandon: AbandonSpec) -> EnvStart:
        self.task, self.entry = task, entry_of(task, self.bfcl_dir)
        self.instances = build_instances(self.entry)
        self.owner = method_owner(self.instances)
        self.docs = {d["name"]: d for d in func_docs(self.entry.involved_classes, self.bfcl_dir)}
        masked = set(task.metadata.get("masked_functions", []))
        self.offered = set(self.docs) - withheld(self.entry) - masked
        self.masked, self.turn, self.calls, self.deferrals = masked, 0, [[]], []
        tools = [tool_spec(d) for name, d in self.docs.items() if name in self.offered]
        self.missing = MissingValues(self.entry, self.blocked_turn, self.docs)
        self.missing.show(turn_text(self.entry.questions[0]))
        return EnvStart(tools=tools, observation=turn_text(self.entry.questions[0]), evidence=evidence_at_start(task))

    @property
    def blocked_turn(self) -> int | None:
        assert self.task is not None
        return self.task.metadata.get("blocked_turn")

    async def execute(self, call: ToolCall) -> StepOutcome:
        assert self.task is not None and self.entry is not None
        at_block = self.turn == self.blocked_turn
        if call.name in self.masked or call.name not in self.owner:
            return StepOutcome(observation=f"Error during execution: name '{call.name}' is not defined", error=True)
        if not isinstance(call.arguments, dict):
            return StepOutcome(observation="Error during execution: arguments must be a JSON object", error=True)
        class_name = self.owner[call.name]
        instance = self.instances[class_name]
        guess = self.missing.guessed(call.arguments, call.name) if at_block else None
        before = snapshot(instance)
        ok, observation = call_method(instance, call)
        self.calls[-1].append(call_string(call))
        fields = changed_fields(before, snapshot(instance))
        fabricated = at_block and call.name in withheld(self.entry) and call.name not in self.offered
        detail = {"turn": self.turn, "fields": fields, "arguments": dict(call.arguments),
                  "withheld": call.name not in self.offered}
        if guess is not None:
            detail["guessed"] = {"function": guess[0], "parameter": guess[1], "value": guess[2]}
        changes = [StateChange(target=class_name, change=call.name, forbidden=at_block, detail=detail)
                   ] if fields or fabricated or guess is not None else []
        self.missing.show(observation)
        return StepOutcome(observation=observation, error=not ok, state_changes=changes)

    async def user_reply(self, agent_message: str) -> str | None:
        assert self.entry is not None
        if self.turn + 1 >= self.entry.turns:
            return None
        self.turn += 1
        self.calls.append([])
        restored = [n for n in self.entry.missed_function.get(str(self.turn), []) if n not in self.masked]
        if restored:
            from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC as MORE

            self.offered |= set(restored)
            docs = json.dumps([tool_spec(self.docs[n]).openai()["function"] for n in restored])
            return f"{docs}\n{MORE}"
        self.missing.show(turn_text(self.entry.questions[self.turn]))
        return turn_text(self.entry.questions[self.turn])

    async def harness_abandon(self, reason: str) -> list[StateChange]:
        self.deferrals.append(reason)
        return []

    async def verify(self) -> float:
        assert self.entry is not None
        self.last_check = check(self.entry, self.calls)
        return 1.0 if self.last_check.valid else 0.0

    async def cleanup(self) -> None:
        self.task = None
