"""The customer side of a retail episode, in three modes.

- `solo`: the customer's whole request (identity and confirmation included) is the first message;
  the first agent message without a tool call ends the episode.
- `scripted`: a deterministic customer opens with the request and answers questions from the task's
  structured scenario (identity, order id, payment method), confirming when asked.
- `llm`: a LiteLLM user simulator (any model `ModelClient` accepts) that plays the scenario and ends
  the conversation with τ²-style control tokens. Its calls are seeded per rollout with
  `user_seed(task id, rollout seed)`: deterministic (a repeat of a rollout draws the same customer),
  different across epochs, never the agent's own seed, and the same for two harnesses on the same
  (task, seed), so a paired comparison faces the same customer draws.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Protocol

from harnessx.errors import one_of
from harnessx.tasks import Task

if TYPE_CHECKING:
    from harnessx.models.client import ModelClient

USER_MODES = ("solo", "scripted", "llm")
STOP, TRANSFER, OUT_OF_SCOPE = "###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"
CONTROL_TOKENS = (STOP, TRANSFER, OUT_OF_SCOPE)
AGENT_GREETING = "Hi! How can I help you today?"
CONFIRM_WORDS = ("confirm", "proceed", "go ahead", "shall i", "should i", "would you like", "do you want",
                 "yes/no", "(yes)", "is that correct", "is this correct")


def user_seed(task_id: str, rollout_seed: int) -> int:
    """The LLM user's seed in the rollout of `task_id` under `rollout_seed` (31 bits, deterministic)."""
    digest = hashlib.sha256(f"user|{task_id}|{rollout_seed}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class Customer(Protocol):
    async def opening(self) -> str: ...

    async def reply(self, agent_message: str) -> str | None: ...


class SoloUser:
    def __init__(self, task: Task):
        self.task = task

    async def opening(self) -> str:
        return self.task.instruction

    async def reply(self, agent_message: str) -> str | None:
        return None


class ScriptedUser:
    """Keyword-driven answers from `task.user_scenario`; ends after `max_turns` or a closing message."""

    def __init__(self, task: Task, max_turns: int = 8):
        self.scenario: dict[str, Any] = task.user_scenario
        self.max_turns, self.turns = max_turns, 0

    async def opening(self) -> str:
        return f"Hi. {self.scenario.get('reason_for_call', '')}".strip()

    def _answers(self, text: str) -> list[str]:
        sc = self.scenario
        answers = []
        if any(w in text for w in ("email", "zip", "your name", "full name", "identity", "verify")):
            answers.append(sc.get("identity_text", "I'd rather not say."))
        if "order id" in text or "order number" in text:
            order_id = sc.get("order_id")
            answers.append(f"The order id is {order_id}." if order_id else "I don't have the order id at hand.")
        if any(w in text for w in ("payment", "refund", "card", "paypal")) and sc.get("payment_text"):
            answers.append(f"Please use {sc['payment_text']}.")
        if any(w in text for w in CONFIRM_WORDS):
            answers.append("Yes, I confirm. Please go ahead.")
        return answers

    async def reply(self, agent_message: str) -> str | None:
        self.turns += 1
        text = agent_message.lower()
        if self.turns > self.max_turns or ("transfer" in text and "human" in text):
            return None
        answers = self._answers(text)
        if answers:
            return " ".join(answers)
        if "?" in text:
            return f"All I can tell you is this: {self.scenario.get('reason_for_call', '')}"
        return None


USER_GUIDELINES = """You play a customer contacting an online store's support agent. Stay in character.
- Say only what the scenario below gives you, a little at a time, in short natural messages. Never invent
  order ids, emails, names or other details; if asked for something you do not know, say you do not know.
- Do not act as the agent and do not describe tools. Do not accept anything the scenario rules out.
- Wait until the agent has actually done (or refused) what you asked before you end the conversation.
- When your request is fully handled, reply with only ###STOP###. If you are transferred to a human agent,
  reply with only ###TRANSFER###. If the scenario gives you no way to answer what is happening, reply with
  only ###OUT-OF-SCOPE###."""


def scenario_text(scenario: dict[str, Any]) -> str:
    parts = [("Why you are contacting the store", scenario.get("reason_for_call")),
             ("What you know", scenario.get("known_info")),
             ("What you do not know", scenario.get("unknown_info")),
             ("How to behave", scenario.get("task_instructions"))]
    return "\n".join(f"{title}: {value}" for title, value in parts if value)


class LLMUser:
    """A model-played customer; the conversation is kept from the customer's point of view."""

    def __init__(self, task: Task, client: ModelClient, seed: int = 0):
        self.task, self.client, self.seed = task, client, seed
        self.messages: list[dict] = [{"role": "system",
                                      "content": f"{USER_GUIDELINES}\n\nScenario:\n{scenario_text(task.user_scenario)}"}]
        self.ended_with: str | None = None

    async def _say(self, agent_message: str) -> str | None:
        self.messages.append({"role": "user", "content": agent_message})
        reply = await self.client.complete(self.messages, None, seed=self.seed, metadata={
            "harnessx": {"task_id": self.task.id, "role": "user_sim", "seed": self.seed}})
        text = reply.text.strip()
        self.messages.append({"role": "assistant", "content": text})
        token = next((t for t in CONTROL_TOKENS if t in text), None)
        if token is not None:
            self.ended_with = token
            return None
        return text

    async def opening(self) -> str:
        text = await self._say(AGENT_GREETING)
        return text if text else self.task.user_scenario.get("reason_for_call", self.task.instruction)

    async def reply(self, agent_message: str) -> str | None:
        if self.ended_with is not None:
            return None
        return await self._say(agent_message)


def make_customer(mode: str, task: Task, client: ModelClient | None = None, seed: int = 0) -> Customer:
    if mode == "solo":
        return SoloUser(task)
    if mode == "scripted":
        return ScriptedUser(task)
    if mode == "llm":
        if client is None:
            raise ValueError("user mode 'llm' needs a user model")
        return LLMUser(task, client, seed)
    raise ValueError(f"unknown user mode {mode!r}; {one_of(USER_MODES)}")
