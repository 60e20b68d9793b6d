"""The `web_search` environment and the `cf` suite (`--env cf`: with search; `--env cf-nosearch`).

One episode is one item. The agent sees the paper's user prompt; in the `search` condition it has
one tool, `web_search(query)`, answered by the suite's search engine (top-k hits with title, date,
url and snippet; every query and result lands in the trajectory as a tool call and its result).
A final reply that holds no `{choice, reason}` JSON gets the stricter JSON-only instruction, at
most twice (the protocol's retries); `verify()` is 1 when the parsed choice is the key.

The condition is a **suite option** (`CFSuite(condition="search"|"none")`), not a harness switch,
so a harness search cannot switch the tool off; `cf-nosearch` is the registered name of the
no-tool condition so every command reaches it with `--env`.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Literal

from harnessx.cf.engine import FTS5Engine, SearchEngine, format_hits
from harnessx.cf.generate import build
from harnessx.cf.items import Item, check_sources, load_articles, load_items
from harnessx.cf.labels import CONDITIONS
from harnessx.cf.protocol import MAX_RETRIES, STRICT_JSON, parse_answer, user_prompt
from harnessx.envs.base import AbandonSpec, EnvStart, StateChange, StepOutcome, ToolSpec
from harnessx.errors import InputError, one_of
from harnessx.tasks import Reference, Task, ToolCall

SEARCH_TOOL = "web_search"
TOP_K = 5


def search_tool(k: int) -> ToolSpec:
    return ToolSpec(name=SEARCH_TOOL,
                    description=f"Search the web (a news index). Returns the top {k} results, each with its "
                                "title, date, url and a snippet.",
                    parameters={"type": "object", "properties": {"query": {"type": "string",
                                                                           "description": "the search query"}},
                                "required": ["query"]})


class CFEnv:
    name = "cf"
    native_abandon: Literal["file", "tool"] = "tool"

    def __init__(self, engine: SearchEngine | None, condition: str, k: int = TOP_K):
        self.engine, self.condition, self.k = engine, condition, k
        self.item: Item | None = None
        self.retries = 0
        self.choice: int | None = None

    async def reset(self, task: Task, abandon: AbandonSpec) -> EnvStart:
        self.item = Item.model_validate(task.metadata["item"])
        self.retries, self.choice = 0, None
        tools = [search_tool(self.k)] if self.condition == "search" else []
        return EnvStart(tools=tools, observation=user_prompt(self.item))

    async def execute(self, call: ToolCall) -> StepOutcome:
        if call.name != SEARCH_TOOL or self.engine is None:
            return StepOutcome(observation=f"Error: unknown tool {call.name}", error=True)
        query = call.arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            return StepOutcome(observation="Error: 'query' must be a non-empty string", error=True)
        return StepOutcome(observation=format_hits(self.engine.search(query, self.k)))

    async def user_reply(self, agent_message: str) -> str | None:
        answer = parse_answer(agent_message)
        if answer is not None:
            self.choice = answer.choice
            return None
        if self.retries < MAX_RETRIES:
            self.retries += 1
            return STRICT_JSON
        return None

    async def harness_abandon(self, reason: str) -> list[StateChange]:
        return []

    async def verify(self) -> float:
        assert self.item is not None
        return 1.0 if self.choice == self.item.key else 0.0

    async def cleanup(self) -> None:
        self.item = None


def sim_reference(item: Item) -> Reference:
    """The simulator's side channel (never sent to a real model): the gold query for OK items and
    the key and rationale, as JSON in `final_answer`."""
    actions = [ToolCall(name=SEARCH_TOOL, arguments={"query": item.query or item.question})] if item.type == "OK" else []
    gold = {"cf": {"kind": item.type, "key": item.key, "rationale": item.rationale}}
    return Reference(actions=actions, final_answer=json.dumps(gold))


class CFSuite:
    """Items and corpus: the built-in generated ones, or `items` (+ `corpus` for the search condition)."""

    name = "cf"

    def __init__(self, condition: str = "search", items: str | None = None, corpus: str | None = None,
                 k: int = TOP_K, index: str | None = None, engine: SearchEngine | None = None):
        if condition not in CONDITIONS:
            raise InputError("condition", f"unknown condition {condition!r}", one_of(CONDITIONS))
        self.condition, self.k, self._engine = condition, k, engine
        if items:
            self.items = load_items(items)
            self.articles = load_articles(corpus) if corpus else []
            if corpus:
                check_sources(self.items, self.articles, str(items))
            elif condition == "search" and engine is None:
                raise InputError("corpus", "the search condition needs a corpus for your items",
                                 "a JSONL/JSON/YAML file of articles (id, title, date, url, text)")
        else:
            built = build()
            self.items, self.articles = list(built.items), list(built.articles)
            if corpus:
                raise InputError("corpus", "a corpus without its items", "--items with the items keyed to it")
        self.index = str(Path(index)) if index else None

    @cached_property
    def engine(self) -> SearchEngine:
        if self._engine is not None:
            return self._engine
        engine = FTS5Engine(path=self.index)  # an index file the user keeps is filled once
        if len(engine) == 0:
            engine.add(self.articles)
        return engine

    def tasks(self, split: str | None = None) -> list[Task]:
        return [self.task(item) for item in self.items if split is None or item.split == split]

    def task(self, item: Item) -> Task:
        return Task(id=item.id, env="cf", split=item.split, feasible=True, source_id=item.id,
                    instruction=user_prompt(item), reference=sim_reference(item),
                    metadata={"benchmark": "cf", "condition": self.condition, "item": item.model_dump(mode="json")})

    def make_env(self) -> CFEnv:
        return CFEnv(self.engine if self.condition == "search" else None, self.condition, self.k)


class NoSearchSuite(CFSuite):
    """The without-search condition under its own registered name (`--env cf-nosearch`)."""

    def __init__(self, **options):
        super().__init__(**{"condition": "none", **options})
