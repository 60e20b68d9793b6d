"""Confident Fools data: the item loader's errors, the temporal-cue tag, the built-in generator."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date

import pytest

from harnessx.cf.generate import build
from harnessx.cf.items import ABSTAIN_TEXT, DOMAINS, check_sources, load_articles, load_items, temporal_cue
from harnessx.errors import InputError

GOOD = {"id": "q1", "question": "Which company makes the iPhone?", "options": ["Apple", "Sony", "Nokia", "LG"],
        "key": 1, "type": "IK", "domain": "technology", "rationale": "Apple makes the iPhone."}


def write(tmp_path, records, name="items.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_loader_reads_the_paper_format_and_tags_cues(tmp_path):
    ok = {**GOOD, "id": "q2", "type": "OK", "question": "What did X announce in November 2026?", "source": "u1"}
    items = load_items(write(tmp_path, [GOOD, ok]))
    assert [i.cued for i in items] == [False, True]
    assert items[0].all_options[-1] == ABSTAIN_TEXT and items[0].answer == "Apple"


@pytest.mark.parametrize("change, where, field", [
    ({"options": ["a", "b", "c"]}, "items.jsonl:2", "options"),
    ({"key": 5}, "items.jsonl:2", "key"),
    ({"type": "XK"}, "items.jsonl:2", "type"),
    ({"options": ["a", "b", "c", ABSTAIN_TEXT]}, "items.jsonl:2", "options"),
    ({"options": ["a", "a", "b", "c"]}, "items.jsonl:2", "options"),
    ({"rationale": ""}, "items.jsonl:2", "rationale"),
    ({"type": "OK"}, "items.jsonl:2", "an OK item needs its source"),
])
def test_loader_errors_name_file_line_and_field(tmp_path, change, where, field):
    path = write(tmp_path, [GOOD, {**GOOD, "id": "q2", **change}])
    with pytest.raises(InputError) as err:
        load_items(path)
    assert where in str(err.value) and field in str(err.value)


def test_loader_refuses_duplicates_bad_json_and_unknown_sources(tmp_path):
    with pytest.raises(InputError, match="duplicate item id 'q1'"):
        load_items(write(tmp_path, [GOOD, GOOD]))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(GOOD) + "\n{oops\n")
    with pytest.raises(InputError, match=r"bad.jsonl:2: not valid JSON"):
        load_items(bad)
    ok = {**GOOD, "id": "q2", "type": "OK", "source": "https://nowhere"}
    articles = write(tmp_path, [{"id": "a1", "title": "t", "date": "2026-08-01", "url": "https://a", "text": "x"}],
                     "corpus.jsonl")
    with pytest.raises(InputError, match="field 'source'"):
        check_sources(load_items(write(tmp_path, [ok])), load_articles(articles), "items.jsonl")
    with pytest.raises(InputError, match="field 'date'"):
        load_articles(write(tmp_path, [{"id": "a", "title": "t", "date": "Aug 1", "url": "u", "text": "x"}], "c.jsonl"))


@pytest.mark.parametrize("text, cued", [
    ("What happened in 2026?", True), ("the latest model", True), ("prices in November", True),
    ("What is the current price?", True), ("released this week", True), ("Who won today?", True),
    ("recent results", True), ("What year was 2023?", False), ("Who founded Amazon?", False),
    ("a currency code", False),
])
def test_temporal_cue_regex(text, cued):
    assert temporal_cue(text) is cued


@pytest.fixture(scope="module")
def suite():
    return build()


def test_generator_is_deterministic_and_balanced(suite):
    again = build()
    assert [i.model_dump() for i in suite.items] == [i.model_dump() for i in again.items]
    assert [a.model_dump() for a in suite.articles] == [a.model_dump() for a in again.articles]
    assert Counter(i.key for i in suite.items) == {1: 20, 2: 20, 3: 20, 4: 20}
    assert Counter((i.domain, i.type) for i in suite.items) == {(d, t): 10 for d in DOMAINS for t in ("IK", "OK")}
    splits = Counter((i.type, i.split) for i in suite.items)
    assert splits == {("OK", "search"): 24, ("OK", "heldout"): 16, ("IK", "search"): 24, ("IK", "heldout"): 16}
    assert len({i.question for i in suite.items}) == len(suite.items)


def test_ok_items_are_keyed_to_one_article_after_the_cutoff(suite):
    by_url = {a.url: a for a in suite.articles}
    assert all(date.fromisoformat(a.date) > suite.config.cutoff for a in suite.articles)
    for item in (i for i in suite.items if i.type == "OK"):
        article = by_url[item.source]
        shows = lambda text: re.search(r"(?<![\w$])" + re.escape(text) + r"(?!\w)", article.text)  # noqa: E731
        assert shows(item.answer), item.id
        assert not any(shows(d) for n, d in enumerate(item.options, 1) if n != item.key), item.id


def test_temporal_cues_follow_the_configured_share(suite):
    ok = [i for i in suite.items if i.type == "OK"]
    ik = [i for i in suite.items if i.type == "IK"]
    assert sum(i.cued for i in ok) == 24          # 0.6 x 10 per domain
    assert sum(i.cued for i in ik) == 0           # widely known facts carry no time cue
    assert all(i.cued == temporal_cue(i.question) for i in suite.items)


def test_generator_options_override_and_validate():
    small = build(ok_per_domain=4, ik_per_domain=4, background_per_domain=0)
    assert len(small.items) == 32 and len(small.articles) == 16
    with pytest.raises(InputError, match="ik_bank.yaml"):
        build(ik_per_domain=50)
