"""Read KAware's published files: one record per line in `*.jsonl` files, found recursively (KAware
keeps them in `External_Function/`, `Hybrid_Function/`, `Internal_Function/`, one file per topology).

What a record holds (the fields KAware's README and runners use):
- `tool_doc`: the offered tools. A JSON string of one function block `{name, description,
  input_schema, ...}` on single-tool items; on multi-tool items a dict from tool name to such a JSON
  string. A list of blocks, a block as an object, and OpenAI blocks (`{"type": "function",
  "function": {..., "parameters"}}`) are read too. The parameter schema is `input_schema` (else
  `parameters`).
- `target_tool`: comma-separated names, each `Server::tool` or a bare name (or a list of them).
- `tool_call_parameter`: the arguments, per tool name on multi-tool items, flat on single-tool ones.
- `tool_response`: the replayed output, per tool name on multi-tool items (a tool without one replays
  ""), the output itself on single-tool items.
- `sub_question_annotations` [{subquestion, tool, boundary}] give T (the P1 tools) on hybrid items.

A record that cannot be read is skipped and reported: one line per file naming the file, the first
bad line's field and what was expected, and how many records of the file were skipped. The rest load.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harnessx.errors import InputError
from harnessx.io_read import read_text
from harnessx.kapro.items import BOUNDARY, HOP_ALIASES, KaproItem, Step, short_name

GENERATED_DIRS = {"prompt_call_answer", "function_call_answer"}  # KAware's runners write their outputs there
HELDOUT_SHARE = 0.4  # per subspace, the held-out share of items (the rest: search)
SPLIT_SEED = "kaware-split-v1"
BLOCK_SHAPE = '{"name": ..., "description": ..., "input_schema": {...}} (as an object or a JSON string)'


class RecordError(ValueError):
    """One record's problem: the field, what is wrong, what was expected."""

    def __init__(self, field_name: str, problem: str, expected: str):
        self.field, self.problem, self.expected = field_name, problem, expected
        super().__init__(f"field '{field_name}': {problem} (expected {expected})")


@dataclass
class FileReport:
    """What one file gave: records read and skipped, and the first skipped record's problem."""

    file: str
    read: int = 0
    skipped: int = 0
    first: str = ""  # "line N, field 'x': problem (expected y)"

    def line(self) -> str:
        total = self.read + self.skipped
        return f"{self.file}: {self.skipped} of {total} record(s) not read; first at {self.first}"


@dataclass
class KawareLoad:
    items: list[KaproItem] = field(default_factory=list)
    files: list[FileReport] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """One line per file with a record that could not be read."""
        return [f.line() for f in self.files if f.skipped]


def _json_text(value: Any, field_name: str, expected: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise RecordError(field_name, f"not valid JSON ({exc.msg})", expected) from None


def _block(raw: Any, field_name: str, key: str | None = None) -> dict[str, Any]:
    block = _json_text(raw, field_name, BLOCK_SHAPE)
    if isinstance(block, dict) and isinstance(block.get("function"), dict):
        block = block["function"]  # an OpenAI function block
    if not isinstance(block, dict):
        raise RecordError(field_name, f"a {type(block).__name__}", BLOCK_SHAPE)
    name = block.get("name", key)
    if not isinstance(name, str) or not name.strip():
        raise RecordError(field_name, "no tool name", BLOCK_SHAPE)
    schema = block.get("input_schema", block.get("parameters")) or {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        raise RecordError(f"{field_name}.input_schema", f"a {type(schema).__name__}", "a JSON schema object")
    return {"type": "function", "function": {"name": short_name(name.strip()),
                                             "description": str(block.get("description") or ""),
                                             "parameters": schema}}


def tool_blocks(raw: Any) -> list[dict[str, Any]]:
    """`tool_doc` -> OpenAI function blocks (see the module docstring for the accepted shapes)."""
    doc = _json_text(raw, "tool_doc", BLOCK_SHAPE)
    if isinstance(doc, list):
        blocks = [_block(b, f"tool_doc[{i}]") for i, b in enumerate(doc)]
    elif isinstance(doc, dict) and not ("name" in doc or "function" in doc):
        blocks = [_block(b, f"tool_doc[{k!r}]", k) for k, b in doc.items()]
    else:
        blocks = [_block(doc, "tool_doc")]
    if not blocks:
        raise RecordError("tool_doc", "no tool", BLOCK_SHAPE)
    return blocks


def targets(raw: Any) -> list[str]:
    values = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else []
    values = [v for v in values if not (isinstance(v, str) and not v.strip())]
    names = [short_name(v.strip()) for v in values if isinstance(v, str)]
    if not names or len(names) != len(values):
        raise RecordError("target_tool", f"{raw!r}", '"Server::tool" names, comma-separated (or a list)')
    return list(dict.fromkeys(names))


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _per_tool(raw: Any, names: list[str]) -> bool:
    """Is this dict keyed by tool name (a multi-tool item's shape)?"""
    return isinstance(raw, dict) and bool(raw) and all(short_name(str(k)) in names for k in raw)


def responses(raw: Any, target: list[str], offered: list[str]) -> dict[str, list[str]]:
    names = list(dict.fromkeys(target + offered))
    if raw is None:
        return {}
    if isinstance(raw, str) and len(target) > 1:  # a multi-tool item's dict, JSON-encoded
        raw = _json_text(raw, "tool_response", f"a dict keyed by tool name (of {', '.join(target)})")
    if _per_tool(raw, names):
        return {short_name(str(k)): [_as_text(x) for x in (v if isinstance(v, list) else [v])]
                for k, v in raw.items() if v is not None}
    if isinstance(raw, list) and len(target) > 1:
        if len(raw) != len(target):
            raise RecordError("tool_response", f"{len(raw)} responses for {len(target)} target tools",
                              "one response per target tool, or a dict keyed by tool name")
        return {t: [_as_text(v)] for t, v in zip(target, raw)}
    if len(target) > 1:
        raise RecordError("tool_response", f"a {type(raw).__name__} not keyed by tool name on a "
                          f"{len(target)}-tool item", f"a dict keyed by tool name (of {', '.join(target)})")
    return {target[0]: [_as_text(raw)]}


def arguments(raw: Any, target: list[str], offered: list[str]) -> dict[str, dict[str, Any]]:
    if raw is None or raw == {}:
        return {}
    raw = _json_text(raw, "tool_call_parameter", "a dict of arguments (per tool name on multi-tool items)")
    if isinstance(raw, list) and len(raw) == len(target):
        return {t: a for t, a in zip(target, raw) if isinstance(a, dict)}
    if not isinstance(raw, dict):
        raise RecordError("tool_call_parameter", f"a {type(raw).__name__}",
                          "a dict of arguments (per tool name on multi-tool items)")
    if len(target) > 1:
        if not _per_tool(raw, list(dict.fromkeys(target + offered))):
            raise RecordError("tool_call_parameter", f"keys {sorted(raw)[:4]} are not tool names",
                              f"a dict keyed by tool name (of {', '.join(target)})")
        return {short_name(str(k)): v for k, v in raw.items() if isinstance(v, dict)}
    if list(raw) == [target[0]] and isinstance(raw[target[0]], dict):
        return {target[0]: raw[target[0]]}
    return {target[0]: raw}


def _hop(record: dict, n_targets: int) -> str:
    raw = record.get("hop")
    if raw is None:
        raw = (record.get("tool_dependency") or {}).get("logic_type") if isinstance(record.get("tool_dependency"),
                                                                                    dict) else None
    raw = str(raw if raw is not None else "single-hop" if n_targets == 1 else "").strip().lower().replace("_", "-")
    if raw not in HOP_ALIASES:
        raise RecordError("hop", f"{record.get('hop')!r}", "single-hop, parallel or multi-hop")
    return HOP_ALIASES[raw]


def _steps(record: dict) -> list[Step]:
    raw = _json_text(record.get("sub_question_annotations"), "sub_question_annotations", "a list") or []
    steps = []
    for i, ann in enumerate(raw if isinstance(raw, list) else [raw]):
        if not isinstance(ann, dict) or not ann.get("tool") or str(ann.get("boundary", "")).upper() not in ("P1", "P3"):
            raise RecordError(f"sub_question_annotations[{i}]", f"{str(ann)[:60]!r}",
                              '{"subquestion": ..., "tool": "tool name", "boundary": "P1" or "P3"}')
        steps.append(Step(subquestion=str(ann.get("subquestion", "")), tool=short_name(str(ann["tool"])),
                          boundary=str(ann["boundary"]).upper()))
    return steps


def _server(record: dict, raw_target: Any) -> str:
    first = (raw_target.split(",")[0] if isinstance(raw_target, str) else str((raw_target or [""])[0])).strip()
    if "::" in first:
        return first.split("::", 1)[0].strip()
    mcp = record.get("mcp_server")
    if isinstance(mcp, list) and mcp:
        return str(mcp[0])
    server = str(mcp or record.get("server") or "")
    return "" if server in ("single", "multi") else server  # KAware's `server` says single/multi server


def parse_record(record: Any, item_id: str) -> KaproItem:
    """One KAware record -> a KaproItem (split set by the caller); a problem is a RecordError."""
    if not isinstance(record, dict):
        raise RecordError("(record)", f"a {type(record).__name__}", "one JSON object per line")
    for key in ("task", "boundary", "target_tool", "tool_doc"):
        if key not in record:
            raise RecordError(key, "missing", "a KAware record (task, boundary, hop, target_tool, tool_doc, ...)")
    if not isinstance(record["task"], str) or not record["task"].strip():
        raise RecordError("task", "empty", "the user's task text")
    boundary = str(record["boundary"]).strip().upper()
    if boundary not in BOUNDARY:
        raise RecordError("boundary", f"{record['boundary']!r}", "P1 (external), P2 (hybrid) or P3 (internal)")
    target, tools = targets(record["target_tool"]), tool_blocks(record["tool_doc"])
    offered = [t["function"]["name"] for t in tools]
    steps = _steps(record)
    if steps:
        required = list(dict.fromkeys(s.tool for s in steps if s.boundary == "P1"))
    elif boundary == "P2":
        raise RecordError("sub_question_annotations", "missing on a P2 (hybrid) item",
                          "per-subquestion boundaries, so that T (the P1 tools) is known")
    else:
        required = list(target) if boundary == "P1" else []
    missing = [t for t in required if t not in offered]
    if missing:
        raise RecordError("tool_doc", f"required tool(s) {missing} are not offered", f"blocks for {missing}")
    subs = record.get("sub_questions")
    sub_text = subs if isinstance(subs, str) else "?".join(map(str, subs or []))
    questions = [s.strip() for s in re.split(r"\?", sub_text) if s.strip()] or [record["task"]]
    answer = record.get("answer", "")
    return KaproItem(
        id=item_id, task=record["task"], subspace=BOUNDARY[boundary], hop=_hop(record, len(target)),
        server=_server(record, record["target_tool"]), tools=tools, required=required,
        responses=responses(record.get("tool_response"), target, offered),
        arguments=arguments(record.get("tool_call_parameter"), target, offered),
        answer=answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False),
        steps=steps or [Step(subquestion=q, tool=t, boundary="P1" if t in required else "P3")
                        for q, t in zip(questions + [record["task"]] * len(target), target)],
        dependency=record.get("tool_dependency") if isinstance(record.get("tool_dependency"), dict) else {},
    )


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jsonl")
                  if p.is_file() and not GENERATED_DIRS & set(p.relative_to(root).parts))


def _named_split(rel: Path) -> str | None:
    """A file or folder named `search` / `heldout` (as a word of its name) sets its items' split."""
    words = {w for part in rel.with_suffix("").parts for w in re.split(r"[^a-z]+", part.lower())}
    return "search" if "search" in words else "heldout" if "heldout" in words else None


def _rank(item_id: str) -> str:
    return hashlib.sha256(f"{SPLIT_SEED}:{item_id}".encode()).hexdigest()


def assign_splits(items: list[KaproItem], named: dict[str, str]) -> list[KaproItem]:
    """Held-out vs search, deterministic and stratified: within each subspace, items ordered by
    topology then by a seeded hash of their id; item i (0-based) is held out when
    floor((i + 1)·s + ½) > floor(i·s + ½), s = HELDOUT_SHARE, so every subspace holds out
    round(n·s) items spread over its topologies. Items of a file named search/heldout keep that."""
    out = {i.id: i.model_copy(update={"split": named[i.id]}) for i in items if i.id in named}
    hops = list(HOP_ALIASES.values())
    for subspace in ("external", "hybrid", "internal"):
        group = sorted((i for i in items if i.subspace == subspace and i.id not in named),
                       key=lambda i: (hops.index(i.hop), _rank(i.id)))
        for k, item in enumerate(group):
            held = math.floor((k + 1) * HELDOUT_SHARE + 0.5) > math.floor(k * HELDOUT_SHARE + 0.5)
            out[item.id] = item.model_copy(update={"split": "heldout" if held else "search"})
    return [out[i.id] for i in items]


def _read_file(file: Path, rel: Path, report: FileReport, seen: set[str]) -> list[KaproItem]:
    items = []
    prefix = rel.with_suffix("").as_posix().replace("/", ".")
    try:
        text = read_text(file, "KAware-format JSONL (UTF-8)")
    except InputError as err:  # unreadable or not UTF-8: the whole file is not read, and said so
        report.skipped += 1
        report.first = f"the whole file: {err}"
        return items
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RecordError("(line)", f"not valid JSON ({exc.msg})", "one JSON object per line") from None
            except RecursionError:
                raise RecordError("(line)", "nested too deeply to read", "a record of ordinary depth") from None
            index = record.get("index", line_no) if isinstance(record, dict) else line_no
            item = parse_record(record, f"{prefix}-{index}")
            if item.id in seen:
                raise RecordError("index", f"duplicate index {index!r}", "unique indexes per file")
        except RecordError as err:
            report.skipped += 1
            report.first = report.first or f"line {line_no}, {err}"
            continue
        seen.add(item.id)
        report.read += 1
        items.append(item)
    return items


def load_kaware(path: str | Path) -> KawareLoad:
    """Every `*.jsonl` under `path` (recursively, sorted; KAware's runner output folders skipped).
    Ids are `<relative path, '/' as '.'>-<index>`. Nothing readable at all is an InputError."""
    root = Path(path)
    if not root.is_dir():
        raise InputError("--kaware-dir", f"{root} is not a directory", "a folder of KAware *.jsonl files")
    files = _files(root)
    if not files:
        raise InputError("--kaware-dir", f"no *.jsonl files in {root} or its subfolders", "KAware-format JSONL files")
    load, seen, named = KawareLoad(), set(), {}
    for file in files:
        rel = file.relative_to(root)
        report = FileReport(rel.as_posix())
        got = _read_file(file, rel, report, seen)
        if split := _named_split(rel):
            named |= {i.id: split for i in got}
        load.items.extend(got)
        load.files.append(report)
    if not load.items:
        first = f"{root}/{load.problems[0]}" if load.problems else "every file is empty"
        raise InputError("--kaware-dir", f"no record could be read from {len(files)} file(s) in {root}; {first}")
    load.items = assign_splits(load.items, named)
    return load
