"""The search engine behind `web_search`: a small Protocol and an embedded SQLite FTS5 engine.

`SearchEngine.search(query, k)` returns the top-k hits (title, date, url, snippet) best first.
`FTS5Engine` indexes articles in an SQLite FTS5 table (in memory, or a file the user keeps) and
ranks with FTS5's `bm25()`. A server engine (Elasticsearch, OpenSearch, a web API) only has to
implement the same method.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from harnessx.cf.items import Article
from harnessx.errors import InputError

TOKEN = re.compile(r"[\w\-.$%,]+", re.UNICODE)
# Title and body columns; the title counts more (bm25 weights per column, in column order).
BM25_WEIGHTS = (3.0, 1.0)


@dataclass(frozen=True)
class Hit:
    title: str
    date: str
    url: str
    snippet: str
    score: float

    def to_dict(self) -> dict:
        return {"title": self.title, "date": self.date, "url": self.url, "snippet": self.snippet,
                "score": round(self.score, 4)}


@runtime_checkable
class SearchEngine(Protocol):
    name: str

    def search(self, query: str, k: int = 5) -> list[Hit]: ...


# Function words dropped from queries (they match nearly every document and add nothing to BM25).
STOPWORDS = frozenset("""a an and are as at be by did do does for from has have how in is it its of on or
the this that to was were what when where which who whom why will with""".split())


def fts_query(query: str) -> str:
    """A free-text query as an FTS5 expression: each word quoted (no operator injection), OR-ed,
    function words dropped (unless nothing else is left)."""
    words = [w.strip(".,") for w in TOKEN.findall(query)]
    words = [w for w in words if w and any(ch.isalnum() for ch in w)]
    content = [w for w in words if w.lower() not in STOPWORDS] or words
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in dict.fromkeys(content))


class FTS5Engine:
    """BM25 full-text search over articles in SQLite FTS5 (`path=None`: in memory)."""

    name = "sqlite-fts5-bm25"

    def __init__(self, articles: list[Article] | None = None, path: str | Path | None = None):
        self._lock = threading.Lock()
        try:  # a path SQLite cannot open or create (/proc, a read-only folder, a file that is not SQLite)
            self.db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False)
            self.db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5("
                            "title, body, date UNINDEXED, url UNINDEXED, tokenize='porter unicode61')")
        except sqlite3.Error as exc:
            raise InputError("--index", f"{path}: cannot open it as an SQLite index ({exc})",
                             "a writable path for a new SQLite file, or an index this command wrote") from None
        if articles:
            self.add(articles)

    def add(self, articles: list[Article]) -> None:
        with self._lock, self.db:
            self.db.executemany("INSERT INTO docs(title, body, date, url) VALUES (?, ?, ?, ?)",
                                [(a.title, a.text, a.date, a.url) for a in articles])

    def __len__(self) -> int:
        return self.db.execute("SELECT count(*) FROM docs").fetchone()[0]

    def search(self, query: str, k: int = 5) -> list[Hit]:
        expr = fts_query(query)
        if not expr:
            return []
        sql = ("SELECT title, date, url, snippet(docs, 1, '', '', ' … ', 48), bm25(docs, ?, ?) AS rank "
               "FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?")
        with self._lock:
            rows = self.db.execute(sql, (*BM25_WEIGHTS, expr, int(k))).fetchall()
        # bm25() is lower-is-better (negative); report higher-is-better
        return [Hit(title, date, url, snippet, -rank) for title, date, url, snippet, rank in rows]


def format_hits(hits: list[Hit]) -> str:
    """What the agent reads back from `web_search`."""
    if not hits:
        return "No results."
    return "\n\n".join(f"[{i}] {h.title} ({h.date})\n{h.url}\n{h.snippet}" for i, h in enumerate(hits, 1))
