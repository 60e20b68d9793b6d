"""Valid text tool calls from local/smollm2: zero-shot vs with the shipped few-shot examples.

Ten requests that each need one tool call, rendered by the harness with `tool_format: text`
(tool schemas in the system prompt): zero-shot, then with the two examples of
harnessx/local/fewshot.yaml as the `few_shot` component, in each of its styles (plain transcript,
ChatML turns). A reply is valid tool-call JSON when it parses as `{"tool", "arguments"}`; the
second count keeps those that also name a tool offered. Prints the counts; asserts nothing.

    python bench/fewshot_toolcalls.py [--model local/smollm2] [--api-base URL] [--max-tokens 96]
"""

from __future__ import annotations

import argparse
import asyncio

from harnessx.envs.base import ToolSpec
from harnessx.harness import Harness
from harnessx.harness.render import render
from harnessx.local.fewshot import tool_call_examples
from harnessx.models.client import ModelClient, parse_text_tool_call


def tool(name: str, description: str, **params: str) -> ToolSpec:
    return ToolSpec(name=name, description=description,
                    parameters={"type": "object", "properties": {p: {"type": t} for p, t in params.items()},
                                "required": list(params)})


KV = [tool("get", "Read the value stored under a key.", key="string"),
      tool("put", "Store a value under a key.", key="string", value="string")]
SHOP = [tool("get_user_details", "Get a customer's profile.", user_id="string"),
        tool("get_product_details", "Get a product and its variants.", product_id="string"),
        tool("cancel_pending_order", "Cancel a pending order.", order_id="string", reason="string")]
SHELL = [tool("run_command", "Run a shell command in /app and return its output.", command="string"),
         tool("list_directory", "List the files in a directory.", path="string")]

REQUESTS = [
    (KV, "Set k3 to blue."),
    (KV, "What is stored under the key k1?"),
    (KV, "Read the key color."),
    (SHOP, "Show me the profile of user mia_garcia_4516."),
    (SHOP, "Which variants does product 6086499569 have?"),
    (SHOP, "Please cancel my pending order #W4817420, I no longer need it."),
    (SHELL, "List the files in /app/data."),
    (SHELL, "Run the tests with pytest -q."),
    (SHELL, "How many lines does /app/log.txt have? Use wc -l."),
    (SHOP, "Look up user noah_brown_6181."),
]
SYSTEM = "You are an assistant that completes the user's request by calling one tool."


async def count_valid(client: ModelClient, few_shot: str, max_tokens: int) -> tuple[int, int, list[str]]:
    harness = Harness(components={"system_prompt": SYSTEM, "few_shot": few_shot}).with_switches(tool_format="text")
    parsed = valid = 0
    replies = []
    for seed, (tools, request) in enumerate(REQUESTS):
        system = render(harness, tools, "tool").system
        reply = await client.complete([{"role": "system", "content": system}, {"role": "user", "content": request}],
                                      max_tokens=max_tokens, seed=seed, text_tools=True)
        calls, malformed = parse_text_tool_call(reply.text)
        parsed += bool(calls) and malformed is None
        valid += bool(calls) and calls[0].name in {t.name for t in tools}
        replies.append(reply.text.strip().replace("\n", " ")[:100])
    return parsed, valid, replies


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local/smollm2")
    parser.add_argument("--api-base", default=None)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--show", action="store_true", help="print every reply")
    args = parser.parse_args()
    client = ModelClient(args.model, api_base=args.api_base, api_key="local" if args.api_base else None)
    conditions = [("zero-shot", "")] + [(f"2 ex. {style}", tool_call_examples(style)) for style in ("plain", "chatml")]
    for label, few_shot in conditions:
        parsed, valid, replies = await count_valid(client, few_shot, args.max_tokens)
        print(f"{label:13} valid tool-call JSON {parsed}/{len(REQUESTS)}, naming an offered tool {valid}/{len(REQUESTS)}")
        if args.show:
            print("\n".join(f"    {r}" for r in replies))


if __name__ == "__main__":
    asyncio.run(main())
