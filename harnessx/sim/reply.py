"""One simulated move as the assistant message LiteLLM returns: tool calls (native or as text), token
usage from the profile's token model, and a simulated latency."""

from __future__ import annotations

import json
import random

from harnessx.sim.conversation import TEXT_TOOL_MARKER
from harnessx.sim.decision import Decision
from harnessx.sim.moves import Move
from harnessx.sim.profile import Profile


def reply(move: Move, messages: list[dict], tools: list[dict], system: str, profile: Profile,
           decision: Decision, turn: int) -> dict:
    content, calls = move.text, []
    if move.call is not None:
        name, args = move.call
        if tools or TEXT_TOOL_MARKER not in system:
            calls = [{"name": n, "arguments": a, "id": f"call_{turn + i}"}
                     for i, (n, a) in enumerate((move.call, *move.more))]
        else:
            content = (content + "\n" if content else "") + json.dumps({"tool": name, "arguments": args})
    rng = random.Random(decision.seed + turn)
    tok = profile.tokens
    prompt_chars = sum(len(str(m.get("content") or "")) for m in messages)
    out_chars = len(content) + sum(len(json.dumps(c["arguments"])) for c in calls)
    reasoning = tok.reasoning_mean * rng.lognormvariate(-tok.reasoning_sigma ** 2 / 2, tok.reasoning_sigma)
    usage = {"prompt_tokens": int(prompt_chars / tok.chars_per_token) + tok.tool_schema_tokens * len(tools or []),
             "completion_tokens": int(out_chars / tok.chars_per_token + reasoning) + 1}
    return {"content": content, "tool_calls": calls, "usage": usage, "latency_s": profile.latency.sample(rng)}
