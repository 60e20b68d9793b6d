"""Confident Fools items and news articles: the paper's item format, validated, and loaders.

An item (digest §4.1) is a 4-option MCQ plus the fixed option 5 "Not enough information to
answer" (the abstention), with its key (1-4), knowledge type (IK: widely known, answer from
memory; OK: a fact from one news article dated after the model's cut-off), domain, source article
and ground-truth rationale (read by the reasoning-alignment judge). The temporal-cue tag is the
digest's regex over the question, stored per item.

Files: items as JSONL (one item per line) or a JSON/YAML list; articles likewise. Every problem is
one `InputError` naming the file, the line (item) and the field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from harnessx.errors import InputError
from harnessx.io_read import read_text

ABSTAIN = 5
ABSTAIN_TEXT = "Not enough information to answer"
Kind = Literal["IK", "OK"]
DOMAINS = ("technology", "health", "business", "entertainment")
# Digest §4.1: a year 2024-2029, "November", "recent", "latest", "current", "this week" or "today".
TEMPORAL_CUE = re.compile(r"\b(202[4-9]|november|recent(ly)?|latest|current(ly)?|this week|today)\b", re.IGNORECASE)


def temporal_cue(text: str) -> bool:
    return TEMPORAL_CUE.search(text) is not None


class Article(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="publication date, YYYY-MM-DD")
    url: str = Field(min_length=1)
    text: str = Field(min_length=1)
    domain: str = ""


class Item(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    options: list[str] = Field(description="the four answer options; option 5 (abstain) is fixed and added")
    key: int = Field(ge=1, le=4, description="the keyed option, 1-4")
    type: Kind
    domain: str = Field(min_length=1)
    source: str = Field("", description="url (or id) of the source article")
    rationale: str = Field(min_length=1, description="ground-truth rationale for the alignment judge")
    split: Literal["search", "heldout"] = "search"
    cued: bool | None = Field(None, description="temporal-cue tag; computed from the question when absent")
    query: str = Field("", description="a search query that finds the source article (OK; simulator and docs)")

    @field_validator("options")
    @classmethod
    def _four_options(cls, value: list[str]) -> list[str]:
        if len(value) != 4:
            raise ValueError(f"needs exactly 4 options (option 5 is fixed), got {len(value)}")
        if any(not str(v).strip() for v in value):
            raise ValueError("options must be non-empty")
        if len({v.strip().lower() for v in value}) != 4:
            raise ValueError("options must be distinct")
        if any(v.strip().lower() == ABSTAIN_TEXT.lower() for v in value):
            raise ValueError(f"{ABSTAIN_TEXT!r} is option 5, not one of the four")
        return value

    @model_validator(mode="after")
    def _cue_and_source(self) -> "Item":
        if self.type == "OK" and not self.source:
            raise ValueError("an OK item needs its source article")
        if self.cued is None:
            object.__setattr__(self, "cued", temporal_cue(self.question))
        return self

    @property
    def all_options(self) -> list[str]:
        return [*self.options, ABSTAIN_TEXT]

    @property
    def answer(self) -> str:
        return self.options[self.key - 1]


def _records(path: Path) -> list[tuple[str, object]]:
    """(location, record) pairs from JSONL, or a JSON/YAML list."""
    if not path.is_file():
        raise InputError(str(path), "file not found")
    text = read_text(path, "Confident Fools items (JSONL, or a JSON/YAML list)")
    if path.suffix == ".jsonl":
        out = []
        for no, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append((f"{path}:{no}", json.loads(line)))
            except (json.JSONDecodeError, RecursionError) as exc:
                raise InputError(f"{path}:{no}", f"not valid JSON: {getattr(exc, 'msg', 'nested too deeply')}") from None
        return out
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError, RecursionError) as exc:
        raise InputError(str(path), f"cannot parse: {exc or 'nested too deeply'}") from None
    if isinstance(data, dict) and isinstance(data.get("items", data.get("articles")), list):
        data = data.get("items", data.get("articles"))
    if not isinstance(data, list):
        raise InputError(str(path), f"top level is {type(data).__name__}", "a list (or JSONL, one record a line)")
    return [(f"{path}[{i}]", record) for i, record in enumerate(data)]


def _validate(model, where: str, record: object):
    if not isinstance(record, dict):
        raise InputError(where, f"record is {type(record).__name__}", "a mapping")
    try:
        return model.model_validate(record)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(record)"
        shown = repr(err.get("input"))[:80]
        raise InputError(where, f"field '{field}' = {shown}: {err['msg']}") from None


def _unique(objs: list, where: str, what: str) -> None:
    seen: set[str] = set()
    for obj in objs:
        if obj.id in seen:
            raise InputError(where, f"duplicate {what} id {obj.id!r}", "unique ids")
        seen.add(obj.id)


def _load(path: str | Path, model: type, what: str) -> list:
    """Every record of a JSONL file validated as `model`; none, or a repeated id, is an error."""
    path = Path(path)
    objs = [_validate(model, where, rec) for where, rec in _records(path)]
    if not objs:
        raise InputError(str(path), f"no {what}s")
    _unique(objs, str(path), what)
    return objs


def load_items(path: str | Path) -> list[Item]:
    return _load(path, Item, "item")


def load_articles(path: str | Path) -> list[Article]:
    return _load(path, Article, "article")


def check_sources(items: list[Item], articles: list[Article], source: str) -> None:
    """Every OK item's source names an article of the corpus (by url or id)."""
    known = {a.url for a in articles} | {a.id for a in articles}
    for item in items:
        if item.type == "OK" and item.source not in known:
            raise InputError(source, f"item {item.id!r}: field 'source' = {item.source!r} is not in the corpus",
                             "the url or id of one article")


def write_jsonl(records: list[BaseModel], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r.model_dump_json(exclude_none=True) + "\n" for r in records), encoding="utf-8")
    return path
