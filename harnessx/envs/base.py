"""The environment protocol that retail, terminal and the toy environment implement.

An environment runs one episode at a time: `reset(task, abandon)` gives the tools and the first
observation; `execute(call)` runs one agent tool call and reports the observation, the state
changes it caused (flagged `forbidden` when the task forbids them), whether the decisive evidence
became observable, and the certified abandon artifact if the call wrote one (file mode).
`verify()` returns the native reward; `cleanup()` releases sandboxes.

A suite groups an environment with its tasks: `tasks()` and `make_env()`.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from harnessx.tasks import Task, ToolCall
from harnessx.tools import AbandonSpec, ToolSpec


class StateChange(BaseModel):
    """One change an action made to the environment's state: what (`target`), how (`change`), and
    whether the task forbids it (a forbidden change on a blocked task fails its no-harm gate)."""

    target: str
    change: str
    forbidden: bool = False
    detail: dict[str, Any] = Field(default_factory=dict)


class ProbeRequest(BaseModel):
    """A read-only request the runtime asks once before the episode (e.g. KAPRO's knowing probe):
    tools may be described in its text but are never offered for calling and nothing runs. The
    harness component `component` replaces `template` when it uses the `{name}` fields, else it is
    added after it (`harnessx.agent.probe_phase.probe_text`); `{name}` is filled from `fields`."""

    role: str = "probe"
    component: str = ""
    template: str
    system: str = "You are a helpful assistant."
    fields: dict[str, str] = Field(default_factory=dict)


class EnvStart(BaseModel):
    """What `Environment.reset` returns: the offered tools, the first observation, and whether the
    decisive evidence is observable from the start."""

    tools: list[ToolSpec]
    observation: str
    evidence: bool = False  # the decisive evidence is observable from the start (spec / initial state)
    probe: ProbeRequest | None = None  # asked (read-only) before the episode starts


class StepOutcome(BaseModel):
    """What `Environment.execute` returns for one tool call."""

    observation: str
    error: bool = False
    state_changes: list[StateChange] = Field(default_factory=list)
    evidence: bool = False
    artifact: str | None = None  # content of the certified abandon file if this call wrote it
    done: bool = False


@runtime_checkable
class Environment(Protocol):
    """The seam of an environment: one episode at a time, driven by the runtime.

    The runtime (`harnessx.agent.runtime.run_rollout`) calls, for each rollout, on a fresh object
    from `Suite.make_env()`: `reset` once; then `execute` for each tool call the agent makes and
    `user_reply` for each message it sends without one; `harness_abandon` when the harness itself
    defers; `verify` once the agent has stopped; and `cleanup` always, even after a failure.

    Anything a method raises is the *environment's* failure: the rollout is recorded, excluded from
    every score (as `env_failure`) and named, never scored as the agent's. An environment never sees
    the harness, the model or the scores, and never decides whether the agent deferred correctly:
    it reports what happened (observations, state changes, evidence) and the scorer judges.

    Attributes:
        name: the environment's name, as the tasks' `env` field and `--env` spell it.
        native_abandon: how an agent certifies a deferral here when the harness's `abandon_mode` is
            `auto`: `tool` (the harness offers its deferral tool) or `file` (the agent writes the
            abandon file in its workspace, and `execute` reports its content as `artifact`).
    """

    name: str
    native_abandon: Literal["file", "tool"]

    async def reset(self, task: Task, abandon: AbandonSpec) -> EnvStart:
        """Start an episode of `task`.

        Args:
            task: the task to run; its `metadata` holds whatever the environment needs to set up
                (the agent never sees it).
            abandon: how the harness lets the agent defer in this episode (`file` mode names the
                file the agent may write).

        Returns:
            The tools offered to the agent (masked ones left out, see `unmasked`), the first
            observation (usually the task's instruction) and whether the decisive evidence is
            observable from the start (`evidence_at_start`).
        """
        ...

    async def execute(self, call: ToolCall) -> StepOutcome:
        """Run one tool call of the agent.

        Args:
            call: the tool's name and its arguments, as the model wrote them (unchecked).

        Returns:
            The observation the agent reads, `error=True` for a call that failed (an unknown tool,
            bad arguments: an error observation, never an exception), every state change the call
            caused with `forbidden=True` on those the task forbids, whether the call exposed the
            decisive evidence (`evidence_in`), and the abandon file's content as `artifact` when the
            call wrote it. Raise only when the environment itself broke (the rollout is excluded).
        """
        ...

    async def user_reply(self, agent_message: str) -> str | None:
        """The user's answer to an agent message without tool calls.

        Returns:
            The next user message, or None to end the episode (an environment without a simulated
            user always returns None).
        """
        ...

    async def harness_abandon(self, reason: str) -> list[StateChange]:
        """The harness itself defers (it writes the abandon artifact, not the agent).

        Returns:
            The state changes that deferring caused (none for most environments); they are recorded
            as harness-authored, so they never count as the agent's deferral.
        """
        ...

    async def verify(self) -> float:
        """The native reward of the finished episode, in [0, 1].

        A feasible task's verifier checks the goal was reached; a blocked task's checks nothing
        forbidden happened (or, with `VERIFY_GOAL`, whether the reference goal was reached). It
        reads the environment's own state, never the agent's claims, and runs after the agent's
        processes are gone.
        """
        ...

    async def cleanup(self) -> None:
        """Release what the episode holds (sandboxes, temporary files). Called after every episode,
        failed ones included; it must not raise for an episode that never started."""
        ...


@runtime_checkable
class Suite(Protocol):
    """A named environment with its tasks: what `--env NAME` builds through the registry
    (`harnessx.envs.registry.SUITES`, `NAME -> "module:Class"`, constructed with the suite options).

    Attributes:
        name: the registry name.
    """

    name: str

    def tasks(self, split: str | None = None) -> list[Task]:
        """The suite's tasks of one split (`search`, `heldout`, `independent`), or all with None.

        Task ids are unique across splits, and the same call always returns the same tasks in the
        same order (searches are resumed and compared by the suite's hash)."""
        ...

    def make_env(self) -> Environment:
        """A fresh environment for one episode. Called once per rollout, possibly on several at
        once (rollouts run concurrently), so environments must not share mutable state."""
        ...


def evidence_in(task: Task, call: ToolCall | None, observation: str) -> bool:
    """Whether this call/observation exposes the task's decisive evidence (observation-type)."""
    ev = task.evidence
    if ev is None or ev.where != "observation":
        return False
    if ev.marker and ev.marker in observation:
        return True
    if ev.tool and call is not None and call.name == ev.tool:
        return all(call.arguments.get(k) == v for k, v in ev.args.items())
    return False


def evidence_at_start(task: Task) -> bool:
    return task.evidence is not None and task.evidence.where in ("spec", "initial_state")


# --- tool masking (FeasiGen: the offered pool minus the critical tools) ------------------------
MASKED_TOOLS = "masked_tools"  # task metadata: tool names the episode must not offer or run
VERIFY_GOAL = "verify_goal"    # task metadata: a blocked task's reward is whether the reference goal was reached


def masked_tools(task: Task) -> frozenset[str]:
    """The tools this task's episode hides (metadata `masked_tools`; empty for ordinary tasks)."""
    return frozenset(task.metadata.get(MASKED_TOOLS) or ())


def unmasked(tools: list[ToolSpec], task: Task) -> list[ToolSpec]:
    """The offered tools minus the task's masked ones."""
    hidden = masked_tools(task)
    return [t for t in tools if t.name not in hidden]


def refused(name: str) -> StepOutcome:
    """What calling a masked tool returns: an error observation, as for any tool not offered."""
    return StepOutcome(observation=f"Error: Tool '{name}' is not available.", error=True)
