"""The web_search tool over SQLite FTS5/BM25, the JSON protocol with its retries, and what the
scorer reads from the trajectory (did it search, the first parseable answer, exclusions)."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from harnessx.agent.runner import Runner
from harnessx.benchmarks import score_trial
from harnessx.cf.engine import FTS5Engine, SearchEngine, format_hits, fts_query
from harnessx.cf.env import SEARCH_TOOL, CFSuite
from harnessx.cf.generate import build
from harnessx.cf.items import Article
from harnessx.cf.protocol import STRICT_JSON, parse_answer, user_prompt
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script


def test_sqlite_has_fts5():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(a)")
    db.executemany("INSERT INTO t(a) VALUES (?)", [("acme launches a rocket",), ("weather report",)])
    hits = db.execute("SELECT a, bm25(t) FROM t WHERE t MATCH 'rocket' ORDER BY bm25(t)").fetchall()
    assert [a for a, _ in hits] == ["acme launches a rocket"]


@pytest.fixture(scope="module")
def builtin():
    return build()


def test_bm25_ranks_the_keyed_article_first_for_every_ok_query(builtin):
    engine = FTS5Engine(list(builtin.articles))
    assert isinstance(engine, SearchEngine) and len(engine) == len(builtin.articles)
    for item in (i for i in builtin.items if i.type == "OK"):
        hits = engine.search(item.query, 5)
        assert hits[0].url == item.source, item.id
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_bm25_prefers_the_document_that_matches_more_and_rarer_terms():
    docs = [Article(id=str(i), title=t, date="2026-08-01", url=f"u{i}", text=x) for i, (t, x) in enumerate([
        ("Zorblax raises prices", "Zorblax said prices rise. Zorblax Zorblax."),
        ("Markets today", "prices fell across markets"),
        ("Weather", "sunny and warm")])]
    hits = FTS5Engine(docs).search("Zorblax prices", 3)
    assert [h.url for h in hits] == ["u0", "u1"]          # the unrelated article does not match at all
    assert FTS5Engine(docs).search("nothing-here", 3) == []


@pytest.mark.parametrize("query", ['"unbalanced', "a OR", "NEAR(x y", "col:value", "*", "", "  ", "AND NOT"])
def test_queries_never_inject_fts_syntax(query, builtin):
    engine = FTS5Engine(list(builtin.articles[:5]))
    assert isinstance(engine.search(query), list)
    assert '"' not in fts_query(query).replace('""', "").strip('"').replace('" OR "', "")


def test_hits_are_formatted_with_title_date_url_snippet(builtin):
    item = next(i for i in builtin.items if i.type == "OK")
    text = format_hits(FTS5Engine(list(builtin.articles)).search(item.query, 2))
    assert text.startswith("[1] ") and item.source in text and "\n[2] " in text
    assert format_hits([]) == "No results."


def test_index_file_is_filled_once(tmp_path, builtin):
    path = tmp_path / "index.sqlite"
    suite = CFSuite(index=str(path))
    assert len(suite.engine) == len(builtin.articles)
    again = CFSuite(index=str(path))
    assert len(again.engine) == len(builtin.articles)


@pytest.mark.parametrize("text, expected", [
    ('{"choice": 2, "reason": "x"}', (2, "x")),
    ('Sure: ```json\n{"choice": "5", "reason": "no info"}\n```', (5, "no info")),
    ('{"choice": 0, "reason": "x"}', None), ('{"choice": 6}', None), ('{"choice": true}', None),
    ('{"choice": 2.5}', None), ("The answer is 2.", None), ("", None), ('{"reason": "x"}', None),
    ('{"choice": 3}', (3, "")), ('[1, 2]', None), ('{"choice": 1, "reason": 7}', None),
])
def test_parse_answer(text, expected):
    got = parse_answer(text)
    assert (got.choice, got.reason) == expected if expected else got is None


def test_user_prompt_is_the_papers(builtin):
    item = builtin.items[0]
    lines = user_prompt(item).splitlines()
    assert lines[0] == f"Question: {item.question}" and lines[1] == "Options:"
    assert lines[2:6] == [f"{n}: {o}" for n, o in enumerate(item.options, 1)]
    assert lines[6] == "5: Not enough information to answer"


# --- episodes with scripted agents ----------------------------------------------------------------
def _answer(choice, reason="r"):
    return {"content": json.dumps({"choice": choice, "reason": reason}), "usage": {"prompt_tokens": 1,
                                                                                    "completion_tokens": 1}}


def searcher(messages, tools, metadata):
    """Searches once with the gold query, then answers the key (read from the side channel)."""
    gold = json.loads(metadata["harnessx"]["sim"]["reference"]["final_answer"])["cf"]
    actions = metadata["harnessx"]["sim"]["reference"]["actions"]  # a gold query on OK items only
    if tools and actions and not any(m["role"] == "tool" for m in messages):
        query = actions[0]["arguments"]["query"]
        return {"content": "", "tool_calls": [{"name": SEARCH_TOOL, "arguments": {"query": query}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1}}
    return _answer(gold["key"], gold["rationale"])


def late_json(messages, tools, metadata):
    """Prose first; JSON only after the stricter instruction."""
    if messages[-1]["content"] == STRICT_JSON:
        return _answer(5, "no info")
    return {"content": "I think it is option 5.", "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


def never_json(messages, tools, metadata):
    return {"content": "Option 2, definitely.", "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


SEARCHER = register_script("cf-searcher", searcher)
LATE = register_script("cf-late-json", late_json)
NEVER = register_script("cf-never-json", never_json)


def run(model, condition="search", ids=None):
    suite = CFSuite(condition=condition)
    tasks = [t for t in suite.tasks() if ids is None or t.id in ids]
    runner = Runner(suite, ModelClient(model))
    preset = load_preset("cf-search" if condition == "search" else "cf-nosearch")
    results = asyncio.run(runner.run_many(preset, tasks, [0]))
    by_id = {t.id: t for t in tasks}
    return [(r, runner.trajectory(r), score_trial(by_id[r.task_id], runner.trajectory(r), r)) for r in results]


OK_ID, IK_ID = "cf-technology-ok-02", "cf-technology-ik-01"


def test_search_is_read_from_the_trajectorys_tool_calls():
    (r_ok, traj, score), (_, _, ik_score) = run(SEARCHER, ids={OK_ID, IK_ID})
    calls = [e for e in traj.of_kind("tool_call") if e.data["name"] == SEARCH_TOOL]
    results = [e for e in traj.of_kind("tool_result") if e.data["name"] == SEARCH_TOOL]
    assert len(calls) == 1 and calls[0].author == "agent" and results and "[1] " in results[0].data["content"]
    assert score.valid and score.values["searched"] == 1.0 and score.values["queries"] == 1.0
    assert score.values["correct"] == 1.0 and score.values["nas"] == 1.0 and r_ok.reward == 1.0
    assert ik_score.values["searched"] == 0.0 and ik_score.values["kis"] == 1.0   # IK: the script did not search


def test_no_search_condition_offers_no_tool():
    [(_, traj, score)] = run(SEARCHER, "none", ids={OK_ID})
    assert not traj.of_kind("tool_call") and "searched" not in score.values
    assert score.values["nas"] == 1.0   # the script answered the key (correct, aligned): aware


def test_stricter_retry_then_first_parseable_answer_is_kept():
    [(_, traj, score)] = run(LATE, ids={OK_ID})
    harness_asks = [e for e in traj.of_kind("message") if e.author == "user" and e.data.get("role") == "user"]
    assert [e.data["content"] for e in harness_asks] == [STRICT_JSON]
    assert score.valid and score.values["retries"] == 1.0 and score.values["choice"] == 5.0
    assert score.values["nas"] == -1.0   # abstained without searching, tool available: unaware


def test_unparseable_after_two_retries_is_excluded_and_counted():
    [(_, traj, score)] = run(NEVER, ids={OK_ID})
    asks = [e for e in traj.of_kind("message") if e.author == "user" and e.data.get("role") == "user"]
    assert len(asks) == 2
    assert not score.valid and score.exclusion == "unparseable" and score.values == {}


class BrokenEngine:
    name = "broken"

    def search(self, query, k=5):
        raise sqlite3.OperationalError("disk I/O error")


def test_a_failing_search_engine_is_an_excluded_environment_failure():
    suite = CFSuite(engine=BrokenEngine())
    task = next(t for t in suite.tasks() if t.id == OK_ID)
    runner = Runner(suite, ModelClient(SEARCHER))
    [result] = asyncio.run(runner.run_many(load_preset("cf-search"), [task], [0]))
    score = score_trial(task, runner.trajectory(result), result)
    assert result.status == "env_failure" and not score.valid and score.exclusion == "env_failure"


def test_task_prompt_component_wraps_the_papers_user_prompt():
    """The user prompt is a harness component too: `task_prompt` around the item ({task})."""
    from harnessx.harness.render import task_message

    harness = load_preset("cf-search").with_component("task_prompt", "Think first.\n\n{task}\n\nAnswer in JSON.")
    suite = CFSuite()
    task = next(t for t in suite.tasks() if t.id == OK_ID)
    runner = Runner(suite, ModelClient("sim/cf-careful-searcher"))
    [result] = asyncio.run(runner.run_many(harness, [task], [0]))
    traj = runner.trajectory(result)
    shown = next(e for e in traj.of_kind("message") if e.data.get("role") == "task").data["content"]
    assert shown == f"Think first.\n\n{task.instruction}\n\nAnswer in JSON." == task_message(harness, task.instruction)
    assert score_trial(task, traj, result).valid                 # the simulated agent still reads the item
    assert task_message(load_preset("cf-search"), "x") == "x"    # no task_prompt: unchanged
    assert task_message(harness.with_component("task_prompt", "Be careful."), "x") == "Be careful.\n\nx"
