"""Scripted task agents for tests: deterministic LiteLLM custom-provider models."""

from __future__ import annotations

from harnessx.models.providers import register_script


def _tool_names(tools: list[dict]) -> list[str]:
    return [t["function"]["name"] for t in tools]


def oracle_script(messages: list[dict], tools: list[dict], metadata: dict) -> dict:
    """Follows the gold plan on feasible tasks; defers with the right reason on blocked ones
    (after reading the evidence for traps); writes nothing forbidden."""
    sim = metadata["harnessx"]["sim"]
    done_calls = sum(1 for m in messages if m["role"] == "tool")
    usage = {"prompt_tokens": 10, "completion_tokens": 5}
    if not sim["feasible"]:
        evidence = sim["evidence"]
        if evidence["where"] == "observation" and done_calls == 0:
            return {"content": "", "tool_calls": [{"name": evidence["tool"], "arguments": evidence["args"]}], "usage": usage}
        reason = sim["blocker"]["description"]
        if "defer_task" in _tool_names(tools):
            return {"content": f"This task is {sim['family']}: {reason}.", "usage": usage,
                    "tool_calls": [{"name": "defer_task", "arguments": {
                        "category": sim["family"], "blocker": reason, "rationale": "observed"}}]}
        return {"content": f"This task is {sim['family']}: {reason}.", "usage": usage}
    actions = sim["reference"]["actions"]
    if done_calls < len(actions):
        action = actions[done_calls]
        return {"content": "", "tool_calls": [{"name": action["name"], "arguments": action["arguments"]}], "usage": usage}
    return {"content": "Done.", "usage": usage}


def garbage_script(messages: list[dict], tools: list[dict], metadata: dict) -> dict:
    """Always answers with a tool call whose arguments are not JSON."""
    return {"content": "", "tool_calls": [{"name": "get", "arguments": "{not json"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


ORACLE = register_script("oracle", oracle_script)
GARBAGE = register_script("garbage", garbage_script)
