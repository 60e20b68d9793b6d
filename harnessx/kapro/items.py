"""A KAPRO item (one task of the knowing/acting protocol) and the KAware JSONL loader.

KAware fields (digest §2.2, [repo]): `task`, `boundary` (P1 external / P2 hybrid / P3 internal),
`hop`, `target_tool` ("Server::tool", or a list for multi-tool items), `tool_doc` (the offered
tools as OpenAI function blocks), `tool_call_parameter`, `tool_response`, `answer`, and on
multi-tool items `sub_questions`, `sub_question_annotations` [{subquestion, tool, boundary}],
`tool_dependency` {logic_type, data_flow, reasoning}. The required set T is the P1 tools only:
the annotations' P1 tools, or on a single-tool item its target tool when the item is P1 (T = ∅ on
internal items, whose offered tool is a temptation). Tool names keep the part after `::`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harnessx.errors import InputError
from harnessx.io_read import read_text
from harnessx.tasks import Reference, Task, ToolCall

Subspace = Literal["external", "hybrid", "internal"]
Hop = Literal["single-hop", "parallel", "multi-hop"]
BOUNDARY = {"P1": "external", "P2": "hybrid", "P3": "internal"}
HOP_ALIASES = {"single": "single-hop", "single-hop": "single-hop", "singlehop": "single-hop", "1": "single-hop",
               "parallel": "parallel", "multi": "multi-hop", "multi-hop": "multi-hop", "multihop": "multi-hop",
               "sequential": "multi-hop"}


class Step(BaseModel):
    """One sub-question with the tool it is about and its boundary (P1 needs the tool)."""

    model_config = ConfigDict(frozen=True)
    subquestion: str = ""
    tool: str
    boundary: Literal["P1", "P3"]


class KaproItem(BaseModel):
    model_config = ConfigDict(frozen=True)
    id: str
    split: Literal["search", "heldout", "independent"] = "heldout"
    task: str
    subspace: Subspace
    hop: Hop
    server: str = ""
    tools: list[dict[str, Any]] = Field(description="offered tools, OpenAI function blocks")
    required: list[str] = Field(description="T: the P1 tools")
    responses: dict[str, list[str]] = Field(default_factory=dict, description="replayed output per tool name")
    arguments: dict[str, dict[str, Any]] = Field(default_factory=dict)
    answer: str = ""
    facts: list[str] = Field(default_factory=list, description="strings a correct answer contains (offline judge)")
    steps: list[Step] = Field(default_factory=list)
    dependency: dict[str, Any] = Field(default_factory=dict)
    distractors: list[str] = Field(default_factory=list)

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.tools]

    def to_task(self) -> Task:
        actions = [ToolCall(name=t, arguments=self.arguments.get(t, {})) for t in self.required]
        return Task(id=self.id, env="kapro", split=self.split, feasible=True, source_id=self.id,
                    instruction=self.task, reference=Reference(actions=actions, final_answer=self.answer),
                    metadata={"benchmark": "kapro", "kapro": self.model_dump(mode="json"),
                              "sim_extra": {"kapro": {"subspace": self.subspace, "hop": self.hop,
                                                      "required": list(self.required), "facts": list(self.facts),
                                                      "distractors": list(self.distractors)}}})


def item_of(task: Task) -> KaproItem:
    return KaproItem.model_validate(task.metadata["kapro"])


def short_name(tool: str) -> str:
    return tool.split("::", 1)[1] if "::" in tool else tool


# --- KAware loader -----------------------------------------------------------------------------
def _fail(where: str, field: str, problem: str, expected: str | None = None) -> InputError:
    return InputError(where, f"field '{field}': {problem}", expected)


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _tool_blocks(raw: Any, where: str) -> list[dict[str, Any]]:
    raw = _maybe_json(raw)
    blocks = raw if isinstance(raw, list) else [raw]
    out = []
    for i, block in enumerate(blocks):
        block = _maybe_json(block)
        if isinstance(block, dict) and "function" not in block and "name" in block:
            block = {"type": "function", "function": block}
        fn = block.get("function") if isinstance(block, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise _fail(where, f"tool_doc[{i}]", f"{str(block)[:60]!r} is not a function block",
                        '{"type": "function", "function": {"name": ..., "description": ..., "parameters": ...}}')
        fn = {**fn, "name": short_name(fn["name"])}
        fn.setdefault("description", "")
        fn.setdefault("parameters", {"type": "object", "properties": {}})
        out.append({"type": "function", "function": fn})
    return out


def _targets(raw: Any, where: str) -> list[str]:
    raw = _maybe_json(raw)
    values = raw if isinstance(raw, list) else [raw]
    if not values or not all(isinstance(v, str) and v for v in values):
        raise _fail(where, "target_tool", f"{raw!r}", '"Server::tool" or a list of them')
    return [short_name(v) for v in values]


def _responses(raw: Any, targets: list[str], where: str) -> dict[str, list[str]]:
    raw = _maybe_json(raw)
    as_text = lambda v: v if isinstance(v, str) else json.dumps(v)  # noqa: E731
    out: dict[str, list[str]] = {}
    if isinstance(raw, dict) and raw and all(short_name(k) in targets for k in raw):
        for k, v in raw.items():
            out.setdefault(short_name(k), []).extend(as_text(x) for x in (v if isinstance(v, list) else [v]))
    elif isinstance(raw, list) and len(targets) > 1:
        if len(raw) != len(targets):
            raise _fail(where, "tool_response", f"{len(raw)} responses for {len(targets)} target tools",
                        "one response per target tool")
        for tool, value in zip(targets, raw):
            out.setdefault(tool, []).append(as_text(value))
    elif raw is not None:
        out[targets[0]] = [as_text(raw)]
    return out


def _arguments(raw: Any, targets: list[str]) -> dict[str, dict[str, Any]]:
    raw = _maybe_json(raw)
    if isinstance(raw, list) and len(raw) == len(targets):
        return {t: a for t, a in zip(targets, raw) if isinstance(a, dict)}
    if isinstance(raw, dict) and raw and all(short_name(k) in targets for k in raw):
        return {short_name(k): v for k, v in raw.items() if isinstance(v, dict)}
    return {targets[0]: raw} if isinstance(raw, dict) else {}


def parse_kaware(record: dict[str, Any], where: str, default_id: str, split: str) -> KaproItem:
    """One KAware record -> a KaproItem; any problem is an InputError naming file:line and field."""
    for key in ("task", "boundary", "target_tool", "tool_doc"):
        if key not in record:
            raise _fail(where, key, "missing", "a KAware record (task, boundary, hop, target_tool, tool_doc, ...)")
    if not isinstance(record["task"], str) or not record["task"].strip():
        raise _fail(where, "task", "empty", "the user's task text")
    boundary = str(record["boundary"]).strip().upper()
    if boundary not in BOUNDARY:
        raise _fail(where, "boundary", f"{record['boundary']!r}", "P1 (external), P2 (hybrid) or P3 (internal)")
    targets = _targets(record["target_tool"], where)
    tools = _tool_blocks(record["tool_doc"], where)
    hop_raw = str(record.get("hop", "single-hop" if len(targets) == 1 else "")).strip().lower().replace("_", "-")
    if hop_raw not in HOP_ALIASES:
        raise _fail(where, "hop", f"{record.get('hop')!r}", "single-hop, parallel or multi-hop")
    steps = []
    for i, ann in enumerate(_maybe_json(record.get("sub_question_annotations")) or []):
        if not isinstance(ann, dict) or "tool" not in ann or str(ann.get("boundary", "")).upper() not in ("P1", "P3"):
            raise _fail(where, f"sub_question_annotations[{i}]", f"{str(ann)[:60]!r}",
                        '{"subquestion": ..., "tool": "Server::tool", "boundary": "P1" or "P3"}')
        steps.append(Step(subquestion=str(ann.get("subquestion", "")), tool=short_name(str(ann["tool"])),
                          boundary=str(ann["boundary"]).upper()))
    if steps:
        required = list(dict.fromkeys(s.tool for s in steps if s.boundary == "P1"))
    elif boundary == "P2":
        raise _fail(where, "sub_question_annotations", "missing on a P2 (hybrid) item",
                    "per-subquestion boundaries, so that T (the P1 tools) is known")
    else:
        required = list(dict.fromkeys(targets)) if boundary == "P1" else []
    offered = {t["function"]["name"] for t in tools}
    missing = [t for t in required if t not in offered]
    if missing:
        raise _fail(where, "tool_doc", f"required tool(s) {missing} are not offered", f"one of {sorted(offered)}")
    subs = _maybe_json(record.get("sub_questions"))
    sub_text = subs if isinstance(subs, str) else "?".join(map(str, subs or []))
    answer = record.get("answer", "")
    return KaproItem(
        id=str(record.get("index", default_id)) if record.get("index") is not None else default_id,
        split=split, task=record["task"], subspace=BOUNDARY[boundary], hop=HOP_ALIASES[hop_raw],
        server=str(record.get("server") or record.get("mcp_server") or ""), tools=tools, required=required,
        responses=_responses(record.get("tool_response"), targets, where),
        arguments=_arguments(record.get("tool_call_parameter"), targets),
        answer=answer if isinstance(answer, str) else json.dumps(answer),
        steps=steps or [Step(subquestion=q, tool=t, boundary="P1" if t in required else "P3")
                        for q, t in zip([s for s in sub_text.split("?") if s.strip()] or [record["task"]], targets)],
        dependency=_maybe_json(record.get("tool_dependency")) or {},
    )


def hashed_split(item_id: str) -> str:
    """A stable 60/40 search/held-out assignment by id (KAware itself has no splits)."""
    return "search" if int(hashlib.sha256(item_id.encode()).hexdigest()[:8], 16) % 5 < 3 else "heldout"


def load_kaware_dir(path: str | Path) -> list[KaproItem]:
    """Every `*.jsonl` file in `path` (sorted), one KAware record per line. Ids are made unique as
    `<file stem>-<index>`. A file whose name contains `search` or `heldout` puts all its items in
    that split; otherwise each item goes to a stable 60/40 search/held-out split by its id."""
    root = Path(path)
    if not root.is_dir():
        raise InputError("--kaware-dir", f"{root} is not a directory", "a folder of KAware *.jsonl files")
    files = sorted(root.glob("*.jsonl"))
    if not files:
        raise InputError("--kaware-dir", f"no *.jsonl files in {root}", "KAware-format JSONL files")
    items, seen = [], set()
    for file in files:
        file_split = "search" if "search" in file.stem else "heldout" if "heldout" in file.stem else None
        for line_no, line in enumerate(read_text(file, "KAware-format JSONL").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{file}:{line_no}"
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, RecursionError) as exc:
                raise InputError(where, f"not valid JSON ({getattr(exc, 'msg', 'nested too deeply')})",
                                 "one JSON object per line") from None
            if not isinstance(record, dict):
                raise InputError(where, f"a {type(record).__name__}, not an object", "one JSON object per line")
            item = parse_kaware(record, where, f"{line_no}", file_split or "heldout")
            new_id = f"{file.stem}-{item.id}"
            item = item.model_copy(update={"id": new_id, "split": file_split or hashed_split(new_id)})
            if item.id in seen:
                raise _fail(where, "index", f"duplicate id {item.id!r}", "unique indexes per file")
            seen.add(item.id)
            items.append(item)
    return items
