"""One rollout: a harness drives a model through an environment on one task.

The loop records every message, tool call, tool result, state change (with its author), evidence
exposure, abandon event and model call into an authenticated trajectory. Malformed model output is
recorded and fed back to the agent, never raised; environment failures end the rollout with status
`env_failure` so that scoring excludes it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from harnessx.agent.clock import AgentClock
from harnessx.agent.probe_phase import read_only_probe
from harnessx.agent.result import RolloutResult
from harnessx.agent.sampling import call_seed, sampling_kwargs, seed_environment
from harnessx.envs.base import Environment, StepOutcome
from harnessx.errors import AgentFault, EnvironmentFailure, ModelCallError
from harnessx.harness.model import Harness
from harnessx.harness.render import EXECUTOR_MESSAGE, PLANNER_REVIEW, Rendered, render, task_message
from harnessx.models.client import ModelClient, ModelReply, Usage
from harnessx.tasks import Task, ToolCall
from harnessx.trajectory import Author, Trajectory

MAX_CONSECUTIVE_MALFORMED = 3
CHALLENGE_TURNS = 5
# Words the harness-side control (condition D) reads in observations as signs of a blocker.
BLOCKER_WORDS = ("error", "not found", "no such", "cannot", "unable", "locked", "missing", "denied",
                 "invalid", "mismatch", "corrupt", "not available", "unavailable")


def sim_side_channel(task: Task) -> dict:
    """What only a simulated model receives (never a real one): plan, blocker, evidence."""
    return {"task_id": task.id, "feasible": task.feasible, "family": task.family,
            "reference": task.reference.model_dump(mode="json"),
            "blocker": task.blocker.model_dump(mode="json") if task.blocker else None,
            "evidence": task.evidence.model_dump(mode="json") if task.evidence else None,
            **({"extra": task.metadata["sim_extra"]} if "sim_extra" in task.metadata else {})}


class _GuardedEnv:
    """Forwards to the environment; anything its coroutines raise becomes an EnvironmentFailure, so
    that only environment errors are excluded as such and a bug elsewhere still fails loudly."""

    def __init__(self, env: Environment):
        self._env = env
        self.name, self.native_abandon = env.name, env.native_abandon
        self.continues_after_abandon = getattr(env, "continues_after_abandon", False)

    def __getattr__(self, attr: str):
        method = getattr(self._env, attr)

        async def guarded(*args, **kwargs):
            try:
                return await method(*args, **kwargs)
            except (EnvironmentFailure, AgentFault):
                raise
            except Exception as exc:
                raise EnvironmentFailure(f"{type(exc).__name__}: {exc}") from exc

        return guarded


@dataclass
class _Episode:
    """Mutable state of one rollout, private to `run_rollout`."""

    task: Task
    env: Environment
    model: ModelClient
    harness: Harness
    rendered: Rendered
    seed: int
    planner_model: ModelClient | None = None  # planner-executor with two models: the planner's
    traj: Trajectory = field(default_factory=Trajectory)
    usage: Usage = field(default_factory=Usage)
    step: int = 0
    malformed: int = 0
    consecutive_malformed: int = 0
    abandoned_by: Author | None = None
    done: bool = False
    stop_reason: str = ""
    started: float = field(default_factory=time.monotonic)
    clock: AgentClock = field(default_factory=AgentClock)
    messages: list[dict] = field(default_factory=list)  # the conversation the agent's part leaves

    # --- model --------------------------------------------------------------------------------
    async def ask(self, messages: list[dict], role: str, tools: bool = True) -> ModelReply:
        metadata = {"harnessx": {"task_id": self.task.id, "seed": self.seed, "role": role, "step": self.step}}
        model = self.planner_model if role == "planner" and self.planner_model else self.model
        if model.simulated:
            metadata["harnessx"]["sim"] = sim_side_channel(self.task)
            metadata["harnessx"]["harness"] = self.harness.hash  # keys `pairing: partial` re-draws (sim/pairing.py)
        sw = self.harness.switches
        tool_schemas = [t.openai() for t in self.rendered.tools] if tools else None
        offered = [t.name for t in self.rendered.tools] if tools else []  # the schemas are on the `tools` event
        seed = call_seed(self.seed, self.consecutive_malformed)
        reply = await model.complete(messages, tool_schemas, metadata=metadata, seed=seed,
                                     max_tokens=sw.max_output_tokens, tool_format=self.rendered.tool_format,
                                     multiple_calls=sw.parallel_tool_calls, **sampling_kwargs(sw))
        self.usage = self.usage + reply.usage
        self.clock.model_call(reply.latency_s, reply.queue_s)
        self.traj.append("model_call", "harness", self.step, role=role, model=model.model, tools=offered,
                         prompt_tokens=reply.usage.prompt_tokens, completion_tokens=reply.usage.completion_tokens,
                         cost_usd=reply.usage.cost_usd, latency_s=round(reply.latency_s, 6), retries=reply.retries,
                         queue_s=round(reply.queue_s, 6), model_s=round(reply.model_s, 6), seed=seed)
        return reply

    def over_budget(self) -> str | None:
        sw = self.harness.switches
        if self.usage.prompt_tokens + self.usage.completion_tokens > sw.max_total_tokens:
            return "token_limit"
        if self.clock.agent_s() > sw.time_limit_s:  # the agent's own time, not waits for a shared model
            return "time_limit"
        return None

    # --- acting -------------------------------------------------------------------------------
    def record_abandon(self, author: Author, mechanism: str, reason: str, **extra) -> None:
        self.traj.append("abandon", author, self.step, mechanism=mechanism, reason=reason, **extra)
        self.abandoned_by = self.abandoned_by or author
        if getattr(self.env, "continues_after_abandon", False):
            return  # a multi-turn environment (BFCL) goes on with the next user turn
        self.done = True
        self.stop_reason = "abandon"

    async def act(self, reply: ModelReply, messages: list[dict], role: str) -> bool:
        """Record the reply and execute its tool calls; True when the agent made tool calls."""
        spec = self.rendered.abandon
        assistant: dict = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls and self.rendered.tool_format == "native":
            assistant["tool_calls"] = [{"id": c.id, "type": "function",
                                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                                       for c in reply.tool_calls]
        messages.append(assistant)
        self.traj.append("message", "agent", self.step, role=role, content=reply.text)
        if reply.malformed:
            self.malformed += 1
            self.consecutive_malformed += 1
            self.traj.append("malformed", "agent", self.step, detail=reply.malformed, raw=reply.text[:2000])
            messages.append({"role": "user", "content": f"Your last output could not be used: {reply.malformed}. "
                                                        "Please try again."})
            if self.consecutive_malformed >= MAX_CONSECUTIVE_MALFORMED:
                self.done, self.stop_reason = True, "malformed_limit"
            return True
        self.consecutive_malformed = 0
        if spec.mode == "stop" and reply.text.lstrip().startswith(spec.stop_token):
            self.record_abandon("agent", "stop", reply.text.lstrip()[len(spec.stop_token):].strip())
            return False
        for call in reply.tool_calls:
            self.traj.append("tool_call", "agent", self.step, id=call.id, name=call.name, arguments=call.arguments)
            if spec.mode == "tool" and call.name == spec.tool:
                ends = not getattr(self.env, "continues_after_abandon", False)
                self._tool_result(messages, call, "Deferral recorded." + (" The episode ends." if ends else ""))
                self.record_abandon("agent", "tool", str(call.arguments.get("blocker", "")),
                                    category=call.arguments.get("category"),
                                    rationale=call.arguments.get("rationale", ""))
                if self.done:
                    return True
                continue  # an episode that goes on (BFCL) runs the reply's later calls, as if sent one by one
            tool_start = time.monotonic()
            outcome = await self.env.execute(call)
            self.clock.tool_call(time.monotonic() - tool_start)
            self._record_outcome(call, outcome, messages, time.monotonic() - tool_start)
            if self.done:
                return True
        return bool(reply.tool_calls)

    def _record_outcome(self, call: ToolCall, outcome: StepOutcome, messages: list[dict], tool_s: float = 0.0) -> None:
        self._tool_result(messages, call, outcome.observation, outcome.error, tool_s=round(tool_s, 6))
        for change in outcome.state_changes:
            self.traj.append("state_change", "agent", self.step, **change.model_dump(mode="json"))
        if outcome.evidence:
            self.traj.append("evidence", "environment", self.step, source="observation", tool=call.name)
        if outcome.artifact is not None and self.rendered.abandon.mode == "file":
            self.record_abandon("agent", "file", outcome.artifact, path=self.rendered.abandon.file)
        if outcome.done and not self.done:
            self.done, self.stop_reason = True, "env_done"

    def _tool_result(self, messages: list[dict], call: ToolCall, content: str, error: bool = False,
                     **timing: float) -> None:
        self.traj.append("tool_result", "environment", self.step, id=call.id, name=call.name,
                         content=content, error=error, **timing)
        if self.rendered.tool_format == "native":
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        else:
            messages.append({"role": "user", "content": f"Tool result ({call.name}):\n{content}"})

    def harness_says(self, messages: list[dict], text: str, purpose: str) -> None:
        messages.append({"role": "user", "content": text})
        self.traj.append("message", "harness", self.step, role=purpose, content=text)

    # --- loops --------------------------------------------------------------------------------
    async def loop(self, messages: list[dict], role: str, max_turns: int) -> None:
        sw = self.harness.switches
        checked_at_end = False
        turns = 0
        while not self.done and turns < max_turns:
            if (reason := self.over_budget()) is not None:
                self.stop_reason = reason
                return
            self.step += 1
            turns += 1
            reply = await self.ask(messages, role)
            called = await self.act(reply, messages, role)
            if self.done:
                return
            if called:
                if sw.self_check == "every-k" and self.rendered.self_check and turns % sw.self_check_k == 0:
                    self.harness_says(messages, self.rendered.self_check, "self_check")
                continue
            if self.rendered.self_check and sw.self_check == "end" and not checked_at_end:
                checked_at_end = True
                self.harness_says(messages, self.rendered.self_check, "self_check")
                continue
            answer = await self.env.user_reply(reply.text)
            if answer is None:
                self.stop_reason = "final_message"
                return
            messages.append({"role": "user", "content": answer})
            self.traj.append("message", "user", self.step, role="user", content=answer)
        if not self.done and not self.stop_reason:
            self.stop_reason = "step_limit"

    async def plan(self, first_observation: str) -> str:
        """Planner rounds (no tools). Returns the plan text handed to the executor."""
        messages = [{"role": "system", "content": self.rendered.planner_system},
                    {"role": "user", "content": first_observation}]
        plan = ""
        for round_no in range(self.harness.switches.planner_rounds):
            self.step += 1
            reply = await self.ask(messages, "planner", tools=False)
            plan = reply.text
            messages.append({"role": "assistant", "content": plan})
            self.traj.append("message", "agent", self.step, role="planner", content=plan)
            spec = self.rendered.abandon
            if spec.mode == "stop" and plan.lstrip().startswith(spec.stop_token):
                self.record_abandon("agent", "stop", plan.lstrip()[len(spec.stop_token):].strip(), role="planner")
                return plan
            if round_no + 1 < self.harness.switches.planner_rounds:
                self.harness_says(messages, PLANNER_REVIEW, "planner_review")
        return plan

    async def harness_control(self) -> None:
        """Condition D: the harness reads what the environment showed and may write the artifact."""
        if self.abandoned_by is not None or self.rendered.abandon.mode == "none":
            return
        signals = [e.data["content"] for e in self.traj.of_kind("tool_result")
                   if e.data.get("error") or any(w in str(e.data["content"]).lower() for w in BLOCKER_WORDS)]
        if not signals:
            return
        reason = f"Harness control: the environment reported a blocker: {str(signals[-1])[:300]}"
        for change in await self.env.harness_abandon(reason):
            self.traj.append("state_change", "harness", self.step, **change.model_dump(mode="json"))
        self.record_abandon("harness", self.rendered.abandon.mode, reason)

    async def challenge(self, messages: list[dict], text: str, pre_reward: float | None) -> None:
        """One neutral reconsideration request after the run; the agent may keep or change course.

        The request's event records `pre_reward`, the native reward at that point (blocked tasks),
        so the pre-challenge prefix of the trajectory can be scored on its own.
        """
        if messages and messages[-1]["role"] == "assistant" and messages[-1].get("tool_calls"):
            # the episode ended on a tool call (e.g. the deferral tool): close it before asking
            self.harness_says(messages, "(The episode has ended.)", "episode_ended")
        messages.append({"role": "user", "content": text})
        self.traj.append("message", "harness", self.step, role="challenge", content=text, pre_reward=pre_reward)
        self.done, self.stop_reason = False, ""
        await self.loop(messages, "agent", CHALLENGE_TURNS)

    async def report(self, messages: list[dict]) -> None:
        self.harness_says(messages, self.rendered.report, "report_request")
        self.step += 1
        reply = await self.ask(messages, "report", tools=False)
        self.traj.append("message", "agent", self.step, role="report", content=reply.text)


async def _act(ep: _Episode, harness: Harness, observation: str) -> None:
    """The agent's part of the episode, by topology, then the harness's own control and report steps;
    the conversation is left in `ep.messages` (a challenge continues it)."""
    sw = harness.switches
    if sw.topology == "planner-executor":
        plan = await ep.plan(observation)
        ep.messages = [{"role": "system", "content": ep.rendered.executor_system}]
        # the executor's conversation starts afresh: recorded as sent, so a trace shows what it was given
        ep.traj.append("message", "harness", ep.step, role="system", content=ep.rendered.executor_system)
        ep.harness_says(ep.messages, EXECUTOR_MESSAGE.format(task=observation, plan=plan), "executor_task")
        if not ep.done:
            await ep.loop(ep.messages, "executor", sw.executor_max_turns)
    else:
        ep.messages = [{"role": "system", "content": ep.rendered.system}, {"role": "user", "content": observation}]
        await ep.loop(ep.messages, "agent", sw.max_steps)
    if sw.harness_control:
        await ep.harness_control()
    if ep.rendered.report:
        await ep.report(ep.messages)


async def run_rollout(harness: Harness, task: Task, env: Environment, model: ModelClient,
                      seed: int, key: str = "", challenge: str | None = None,
                      planner_model: ModelClient | None = None) -> tuple[RolloutResult, Trajectory]:
    """Run one episode and return its result and authenticated trajectory.

    With `challenge`, the finished episode gets one more user message (a neutral reconsideration
    request, recorded as a harness `message` with role `challenge`) and the agent may act again for
    up to CHALLENGE_TURNS turns; events before that message are the pre-challenge trajectory.
    With `planner_model`, a planner-executor harness plans with that model and executes with `model`.
    """
    env_seeds = seed_environment(env, task.id, seed)  # e.g. retail's LLM user: recorded on `start`
    env = _GuardedEnv(env)
    ep = _Episode(task=task, env=env, model=model, harness=harness, seed=seed, planner_model=planner_model,
                  rendered=render(harness, [], env.native_abandon))
    ep.traj.append("start", "harness", 0, task_id=task.id, harness_hash=harness.hash, harness_name=harness.name,
                   model=model.model, seed=seed, simulated=model.simulated, **env_seeds,
                   **({"planner_model": planner_model.model} if planner_model else {}))
    status, reward = "ok", None
    try:
        start = await env.reset(task, ep.rendered.abandon)
        start = start.model_copy(update={"observation": task_message(harness, start.observation)})
        ep.rendered = render(harness, start.tools, env.native_abandon)
        first = ep.rendered.planner_system if harness.switches.topology == "planner-executor" else ep.rendered.system
        ep.traj.append("message", "harness", 0, role="system", content=first)  # the first conversation's
        ep.traj.append("tools", "harness", 0, format=ep.rendered.tool_format,
                       tools=[t.openai() for t in ep.rendered.tools])
        ep.traj.append("message", "user", 0, role="task", content=start.observation)
        if start.evidence:
            ep.traj.append("evidence", "environment", 0, source=task.evidence.where if task.evidence else "spec")
        if start.probe is not None:  # a read-only request before the episode (e.g. KAPRO's knowing probe)
            await read_only_probe(ep, start.probe)
        await _act(ep, harness, start.observation)
        if challenge:
            await ep.challenge(ep.messages, challenge, None if task.feasible else await env.verify())
        if ep.stop_reason == "malformed_limit":
            status = "malformed_limit"
        reward = await env.verify()
        for note in getattr(env._env, "guard_notes", None) or []:  # e.g. the terminal's verifier guards
            ep.traj.append("note", "environment", ep.step, detail=note)
    except AgentFault as exc:  # the agent's doing: scored as a failure, with its cause
        reward = 0.0
        ep.traj.append("note", "environment", ep.step, detail=f"scored 0: {exc}")
    except ModelCallError as exc:
        status = "model_failure"
        ep.traj.append("error", "harness", ep.step, error_type="model", detail=str(exc))
    except EnvironmentFailure as exc:  # the environment's failure, not the agent's: excluded, never scored
        status = "env_failure"
        cause = exc.__cause__ or exc
        ep.traj.append("error", "environment", ep.step, error_type=type(cause).__name__, detail=str(cause)[:2000])
    finally:
        try:
            await env.cleanup()
        except EnvironmentFailure as exc:
            ep.traj.append("error", "environment", ep.step, error_type="cleanup", detail=str(exc.__cause__ or exc)[:500])
    duration = time.monotonic() - ep.started
    ep.traj.append("end", "harness", ep.step, status=status, reward=reward, stop_reason=ep.stop_reason,
                   abandoned_by=ep.abandoned_by, duration_s=round(duration, 4), **ep.clock.record())
    result = RolloutResult(key=key, task_id=task.id, harness_hash=harness.hash, seed=seed, model=model.model,
                           status=status, reward=reward, usage=ep.usage, steps=ep.step, duration_s=duration,
                           stop_reason=ep.stop_reason or status, abandoned_by=ep.abandoned_by, malformed=ep.malformed)
    return result, ep.traj
