"""Few-shot tool-call examples, shipped as data (fewshot.yaml), rendered for the harness component
`few_shot`.

Two styles: `plain` (a `User:` / `Assistant:` transcript, for any model) and `chatml` (the same
turns in ChatML markup, which small ChatML models such as SmolLM2 follow far more often; see
bench/fewshot_toolcalls.py).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Literal

import yaml

Style = Literal["plain", "chatml"]


def tool_call_examples(style: Style = "plain") -> str:
    """The shipped examples as `few_shot` text; each call is `{"tool": ..., "arguments": {...}}`."""
    data = yaml.safe_load(resources.files(__package__).joinpath("fewshot.yaml").read_text(encoding="utf-8"))
    turns = [(ex["request"], json.dumps(ex["call"])) for ex in data["examples"]]
    if style == "chatml":
        body = "\n".join(f"<|im_start|>user\n{request}<|im_end|>\n<|im_start|>assistant\n{call}<|im_end|>"
                         for request, call in turns)
    elif style == "plain":
        body = "\n\n".join(f"User: {request}\nAssistant: {call}" for request, call in turns)
    else:
        raise ValueError(f"unknown few-shot style {style!r} (plain or chatml)")
    return f"{data['intro']}\n\n{body}"
