"""Pass rate judges (digest §2.3): the deterministic answer match (offline default) and the
paper's Agent Evaluation Prompt on any LiteLLM model.

Deterministic: every reference fact must appear in the final answer; a numeric fact matches any
number in the answer within 0.01 (so "1000 m" matches "1000.0"), text facts match
case-insensitively as substrings.
"""

from __future__ import annotations

import json
import re

from harnessx.errors import ModelCallError

_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")
JUDGE_PROMPT = (
    "Role: You are an Expert Agent Evaluator. Your objective is to strictly assess whether an AI agent has "
    "successfully fulfilled a user's request based on its execution trajectory and final response.\n"
    "Input Data:\n(User Task) {sub_questions}\n(Tool Calling Trajectory) {trajectory}\n"
    "(Agent's Final Answer) {answer}\n(Ground Truth/Reference) {reference}\n"
    "Task Description: Analyze the provided input data to determine if the user's task was solved. You must "
    "generate a reasoning string explaining your judgment and assign a definitive binary status.\n"
    "Evaluation Criteria: Solved: The agent's final answer is correct OR the answer adequately addresses the "
    "user's task. Unsolved: The agent's final answer is incorrect AND fails to address the user's task, OR the "
    "agent refuses the task.\n"
    "Reasoning Process: Intent Analysis: Understand the specific goal in the User Task. Trajectory Review: Examine "
    "the Tool Calling Trajectory to see if the agent took appropriate actions. Answer Verification: Compare the "
    "Agent's Final Answer against the Reference (if available) and the Solved/Unsolved criteria defined above.\n"
    'Output Format: You must respond with a single, valid JSON object containing exactly these keys: "content": '
    '(String) Your reasoning explaining why you assigned the status. "answer_status": (String) Must be exactly '
    '"Solved" or "Unsolved".')


def _as_number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def answer_matches(answer: str, facts: list[str]) -> bool:
    if not answer.strip():
        return False
    numbers = [_as_number(m) for m in _NUMBER.findall(answer)]
    lowered = answer.lower()
    for fact in facts:
        value = _as_number(fact.strip())
        if value is not None:
            if not any(n is not None and abs(n - value) < 0.01 for n in numbers):
                return False
        elif fact.lower() not in lowered:
            return False
    return True


def parse_verdict(text: str) -> bool | None:
    """The judge's `answer_status` (True = Solved); None when the reply is not the expected JSON."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        status = json.loads(match.group(0)).get("answer_status") if match else None
    except (json.JSONDecodeError, AttributeError):
        return None
    return {"solved": True, "unsolved": False}.get(str(status).strip().lower())


async def llm_pass(client, sub_questions: str, trajectory: str, answer: str, reference: str) -> tuple[bool | None, str]:
    """One verdict from the paper's judge prompt through `ModelClient` (None: unusable reply or failure)."""
    prompt = (JUDGE_PROMPT.replace("{sub_questions}", sub_questions).replace("{trajectory}", trajectory)
              .replace("{answer}", answer).replace("{reference}", reference))
    try:
        reply = await client.complete([{"role": "user", "content": prompt}], None, max_tokens=1024)
    except ModelCallError as exc:
        return None, f"judge call failed: {exc}"
    return parse_verdict(reply.text), reply.text[:500]
