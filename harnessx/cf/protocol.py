"""The Confident Fools protocol (digest §4.2): the paper's user prompt, `{choice, reason}` parsing,
and the stricter JSON-only instruction sent on a parse failure (at most two retries).

The system prompts are harness components (presets `cf-search` and `cf-nosearch`), so a search can
change them; the user prompt is the item rendered in the paper's format (the environment's first
observation).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from harnessx.cf.items import ABSTAIN_TEXT, Item

MAX_RETRIES = 2
STRICT_JSON = ('Your reply could not be parsed. Reply with ONLY a JSON object of the form '
               '{"choice": <1, 2, 3, 4 or 5>, "reason": "<very short reason>"} and no other text.')
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class Answer:
    choice: int
    reason: str


def user_prompt(item: Item) -> str:
    """The paper's user prompt (App. C.1): the question, options 1-4 and the fixed option 5."""
    lines = [f"Question: {item.question}", "Options:"]
    lines += [f"{i}: {text}" for i, text in enumerate(item.options, 1)]
    lines.append(f"5: {ABSTAIN_TEXT}")
    return "\n".join(lines)


def parse_answer(text: str | None) -> Answer | None:
    """`{"choice": 1-5, "reason": str}` from a reply (code fences and surrounding prose tolerated);
    None when there is no such object (a format error, which the protocol retries)."""
    if not text:
        return None
    match = _OBJECT.search(text)
    if not match:
        return None
    try:
        obj = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict):
        return None
    choice, reason = obj.get("choice"), obj.get("reason", "")
    if isinstance(choice, str) and choice.strip().isdigit():
        choice = int(choice.strip())
    if isinstance(choice, bool) or not isinstance(choice, int) or not 1 <= choice <= 5:
        return None
    if not isinstance(reason, str):
        return None
    return Answer(choice, reason.strip())
