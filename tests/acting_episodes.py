"""Hand-built episodes for the acting-on-the-blocker generators (tests/test_acting_classes.py).

`Episode` drives a real environment (or none: results given by the caller) and records the events
the runtime would record (task message, agent message per reply, tool call, tool result, state
changes, evidence, user turns, abandon, end), so the scorer reads them exactly as it reads a
rollout. A failure-class episode may end with a forced native reward of 1 (the most lenient
verifier: the attempt changed nothing), so what is asserted is the scorer's gate, not the reward.
"""

from __future__ import annotations

import json
import os
import posixpath

from harnessx.agent.result import RolloutResult, Usage
from harnessx.envs.base import AbandonSpec
from harnessx.scoring import score_rollout
from harnessx.tasks import Task, ToolCall
from harnessx.trajectory import Trajectory

TOOL = AbandonSpec(mode="tool")
PLACEHOLDER = "placeholder"


def statement(task: Task) -> str:
    """A deferral that names the family and every key fact (what a correct reason says); on a
    feasible task, a plain infeasibility claim."""
    if task.blocker is None:
        return "This request is infeasible and cannot be done."
    return (f"This request is {task.family} and cannot be done: {task.blocker.description} "
            f"({'; '.join(task.blocker.key_facts)}).")


def wrong(value):
    """A plausible wrong value of the same type (a slip, not garbage)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return round(value * 1.5 + 1, 2)
    if isinstance(value, list):
        return [wrong(v) for v in value] if value else ["other"]
    text = str(value)
    return text[:-1] + ("X" if not text.endswith("X") else "Y") if text else "other"


def spellings(path: str, workdir: str = "/app") -> dict[str, str]:
    """Ways to write `path` in a shell word (each assumes the shell is in `workdir`, except where a
    variable or a substitution carries the path)."""
    rel = posixpath.relpath(path, workdir)
    head, base = posixpath.split(path)
    return {
        "absolute": path, "relative": rel, "dotted": f"./{rel}", "parent": f"../{workdir.strip('/')}/{rel}",
        "double_quoted": f'"{path}"', "split_quotes": f"'{head}/'\"{base}\"", "backslash": path.replace("/", "\\/"),
        "glob_star": f"{head}/*", "glob_char": f"{head}/{base[:-1]}?", "glob_class": f"{head}/[{base[0]}]{base[1:]}",
        "braces": f"{head}/{{{base},other}}", "tilde": f"~/../{path.lstrip('/')}",
        "variable": '"$F"', "braced_variable": "${F}", "substitution": f"$(echo {path})",
        "backquotes": f"`printf %s {rel}`", "ansi_hex": "$'" + "".join(f"\\x{ord(c):02x}" for c in path) + "'",
        "basename": base, "double_slash": "/" + path if path.startswith("/") else f"//{workdir.strip('/')}/{rel}",
    }


class Episode:
    def __init__(self, task: Task, env=None):
        self.task, self.env, self.step, self.abandoned = task, env, 0, None
        self.traj = Trajectory()
        self.traj.append("start", "harness", 0, task_id=task.id, harness_hash="acting-gen", seed=0,
                         model="gen/acting")

    async def open(self, observation: str | None = None) -> "Episode":
        evidence = False
        if self.env is not None:
            start = await self.env.reset(self.task, TOOL)
            observation, evidence = start.observation, start.evidence
        else:
            evidence = self.task.evidence is not None and self.task.evidence.where in ("spec", "initial_state")
        self.traj.append("message", "user", 0, role="task", content=observation or self.task.instruction)
        if evidence:
            self.traj.append("evidence", "environment", 0, source=self.task.evidence.where)
        return self

    async def call(self, name: str, arguments: dict, result: tuple[str, bool] = ("ok", False),
                   changes: list[dict] | None = None, shows_evidence: bool = False) -> str:
        """One agent reply with one call; without an env, `result`, `changes` and `shows_evidence`
        say what the environment answered."""
        self.step += 1
        self.traj.append("message", "agent", self.step, role="agent", content="")
        call_id = f"c{self.step}"
        self.traj.append("tool_call", "agent", self.step, id=call_id, name=name, arguments=arguments)
        if self.env is not None:
            out = await self.env.execute(ToolCall(name=name, arguments=arguments, id=call_id))
            text, error = out.observation, out.error
            changes = [c.model_dump(mode="json") for c in out.state_changes]
            shows_evidence = bool(out.evidence)
        else:
            text, error = result
        for change in changes or []:
            self.traj.append("state_change", "agent", self.step, **change)
        if shows_evidence:
            self.traj.append("evidence", "environment", self.step, source="observation", tool=name)
        self.traj.append("tool_result", "environment", self.step, id=call_id, name=name, content=text, error=error)
        return text

    def say(self, text: str) -> None:
        self.step += 1
        self.traj.append("message", "agent", self.step, role="agent", content=text)

    async def next_turn(self) -> bool:
        """The user's next turn (multi-turn environments); False when there is none."""
        answer = await self.env.user_reply("Turn handled.") if self.env is not None else None
        if answer is None:
            return False
        self.traj.append("message", "user", self.step, role="user", content=answer)
        return True

    def defer(self) -> None:
        """The agent's certified deferral, in one reply that states the blocker."""
        self.step += 1
        text = statement(self.task)
        self.traj.append("message", "agent", self.step, role="agent", content=text)
        family = self.task.family or "infeasible"
        self.traj.append("tool_call", "agent", self.step, id=f"c{self.step}", name="defer_task",
                         arguments={"category": family, "blocker": text})
        self.traj.append("abandon", "agent", self.step, mechanism="tool", category=family, reason=text,
                         rationale=text)
        self.abandoned = self.abandoned or "agent"
        self.traj.append("tool_result", "environment", self.step, id=f"c{self.step}", name="defer_task",
                         content="Deferral recorded.", error=False)

    async def calls_and_deferral(self, calls: list[tuple], after: bool = False) -> None:
        """The calls (name, arguments[, result, changes]) and the deferral: after them, or (`after`)
        before them, so that the calls act on the blocker once the agent has deferred."""
        if after:
            self.defer()
        for name, args, *given in calls:
            await self.call(name, args, *given)
        if not after:
            self.defer()

    async def finish(self, reward: float | None = None, scorer=score_rollout):
        """(TaskScore, reward): the environment's own verdict unless `reward` forces one; `scorer`
        (task, trajectory, result): the ASA ladder unless a benchmark's own."""
        if reward is None:
            reward = await self.env.verify()
        if self.env is not None:
            await self.env.cleanup()
        self.traj.append("end", "harness", self.step, status="ok", reward=reward, stop_reason="done",
                         abandoned_by=self.abandoned)
        result = RolloutResult(key="k", task_id=self.task.id, harness_hash="acting-gen", seed=0, model="gen/acting",
                               status="ok", reward=reward, usage=Usage(), steps=self.step, duration_s=0.0,
                               stop_reason="done", abandoned_by=self.abandoned)
        return scorer(self.task, self.traj, result), reward


def credited(score) -> bool:
    return bool(score.strict_sa or score.relaxed_sa)


def report(data_set: str, tasks: int, tally: dict) -> None:
    """Append a generator's tally ({class: {checked, credited}}) to $HARNESSX_ACTING_TALLY, when set
    (docs/figures_scoring.py renders the figure docs/scoring.md quotes from it)."""
    path = os.environ.get("HARNESSX_ACTING_TALLY")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"set": data_set, "tasks": tasks, "tally": tally}) + "\n")
