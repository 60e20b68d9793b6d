"""Valid tool calls from local/smollm2 by tool format: native, constrained, text (zero- and few-shot).

Ten requests that each need one tool call, rendered by the harness for each `tool_format`:
native (schemas as the API's `tools`; the local provider constrains decoding to a call of an
offered tool or a message), constrained (schemas in the prompt, the reply constrained by a JSON
schema through `response_format`), text (schemas in the prompt, free text), and text with the two
shipped few-shot examples (harnessx/local/fewshot.yaml) in each of their styles. A reply is a
valid call when it parses with no malformed reason and names a tool offered; replies that answer
in words instead are counted apart. Validity is not correctness: a valid call may still pick another
offered tool (counted: "naming the tool a person would call") or fill its arguments badly. Each
format runs with `tool_choice` auto (the final-message branch open) and required (a call is asked
for, as the OpenAI API's `tool_choice: "required"`; not for free text). `--repeat N` runs the ten requests N times with other seeds
(at `--temperature` > 0 the draws differ). Prints the counts with a Wilson 95% interval; asserts nothing.

    python bench/fewshot_toolcalls.py [--model local/smollm2] [--api-base URL] [--max-tokens 96]
        [--formats native,constrained,text] [--repeat 1] [--temperature 0]
"""

from __future__ import annotations

import argparse
import asyncio

from harnessx.envs.base import ToolSpec
from harnessx.harness import Harness
from harnessx.harness.render import render
from harnessx.local.fewshot import tool_call_examples
from harnessx.models.client import ModelClient
from harnessx.stats import wilson


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

REQUESTS = [  # (tools offered, request, the tool a person would call)
    (KV, "Set k3 to blue.", "put"),
    (KV, "What is stored under the key k1?", "get"),
    (KV, "Read the key color.", "get"),
    (SHOP, "Show me the profile of user mia_garcia_4516.", "get_user_details"),
    (SHOP, "Which variants does product 6086499569 have?", "get_product_details"),
    (SHOP, "Please cancel my pending order #W4817420, I no longer need it.", "cancel_pending_order"),
    (SHELL, "List the files in /app/data.", "list_directory"),
    (SHELL, "Run the tests with pytest -q.", "run_command"),
    (SHELL, "How many lines does /app/log.txt have? Use wc -l.", "run_command"),
    (SHOP, "Look up user noah_brown_6181.", "get_user_details"),
]
SYSTEM = "You are an assistant that completes the user's request by calling one tool."


async def count_valid(client: ModelClient, tool_format: str, few_shot: str, max_tokens: int,
                      repeat: int, tool_choice: str | None) -> tuple[int, int, int, int, list[str]]:
    harness = Harness(components={"system_prompt": SYSTEM, "few_shot": few_shot}).with_switches(tool_format=tool_format)
    valid = words = total = intended = 0
    replies = []
    for rep in range(repeat):
        for i, (tools, request, expected) in enumerate(REQUESTS):
            system = render(harness, tools, "tool").system
            reply = await client.complete([{"role": "system", "content": system}, {"role": "user", "content": request}],
                                          [t.openai() for t in tools], max_tokens=max_tokens,
                                          seed=rep * len(REQUESTS) + i, tool_format=tool_format,
                                          tool_choice=tool_choice)
            total += 1
            offered = {t.name for t in tools}
            ok = bool(reply.tool_calls) and reply.malformed is None and all(c.name in offered for c in reply.tool_calls)
            valid += ok
            intended += ok and reply.tool_calls[0].name == expected
            words += not reply.tool_calls and reply.malformed is None
            shown = reply.tool_calls[0].model_dump_json() if reply.tool_calls else reply.text
            replies.append(f"{'ok ' if ok else 'BAD'} {shown.strip().replace(chr(10), ' ')[:100]}"
                           + (f"  [{reply.malformed}]" if reply.malformed else ""))
    return valid, words, total, intended, replies


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local/smollm2")
    parser.add_argument("--api-base", default=None)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--formats", default="native,constrained,text,text+fewshot")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--tool-choice", default="auto,required",
                        help="auto (a final message may be chosen) and/or required (a call is asked for)")
    parser.add_argument("--show", action="store_true", help="print every reply")
    args = parser.parse_args()
    client = ModelClient(args.model, api_base=args.api_base, api_key="local" if args.api_base else None,
                         temperature=args.temperature)
    conditions = []
    for fmt in args.formats.split(","):
        if fmt == "text+fewshot":
            conditions += [(f"text, 2 ex. {style}", "text", tool_call_examples(style)) for style in ("plain", "chatml")]
        else:
            conditions.append((fmt, fmt, ""))
    for (label, fmt, few_shot), choice in ((c, ch) for ch in args.tool_choice.split(",") for c in conditions):
        if choice == "required" and fmt == "text":
            continue  # free text cannot be required to call
        valid, words, total, intended, replies = await count_valid(client, fmt, few_shot, args.max_tokens, args.repeat,
                                                         None if choice == "auto" else choice)
        label = f"{label} ({choice})"
        lo, hi = wilson(valid, total)
        print(f"{label:30} valid calls naming an offered tool {valid}/{total} ({100 * valid / total:.0f}%, "
              f"Wilson 95% [{100 * lo:.1f}%, {100 * hi:.1f}%]), answered in words {words}/{total}, "
              f"malformed {total - valid - words}/{total}; of all, naming the tool a person would call "
              f"{intended}/{total}", flush=True)
        if args.show:
            print("\n".join(f"    {r}" for r in replies))


if __name__ == "__main__":
    asyncio.run(main())
