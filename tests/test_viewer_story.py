"""The viewer labels what each number is measured on: a candidate judged on a screened subset of the
search split says so beside its k/n and is compared with its incumbent only on the same tasks; a
side-by-side page states each side's verdict (pass / fail / excluded, the gates, why), apart from the
environment's native reward."""

from __future__ import annotations

import html
import json
import re
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harnessx.viewer import create_app
from tests.viewer_fixtures import make_heldout_compare, make_search


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    runs = tmp_path_factory.mktemp("story") / "runs"
    make_search(runs, rounds=1, proposals=2)
    return runs


def text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def rewrite(runs, tmp, judged: dict) -> tuple:
    """A copy of the search whose round-1 rows carry `judged` (a screened evaluation of that size)."""
    copy = tmp / "runs"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(runs, copy, ignore=shutil.ignore_patterns("rollouts"))
    ledger = copy / "demo" / "ledger.jsonl"
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    for row in rows:
        if row["round"]:
            row["judged"] = {**row["judged"], **judged}
            row["stage"] = "race"
    ledger.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return copy, rows


@settings(max_examples=12, deadline=None)
@given(tasks=st.integers(1, 200), extra=st.integers(0, 200), diff=st.floats(-1, 1))
def test_a_screened_score_is_labelled_with_its_subset_wherever_the_tree_and_page_show_it(searched, tmp_path_factory,
                                                                                         tasks, extra, diff):
    of = tasks + extra
    copy, rows = rewrite(searched, tmp_path_factory.mktemp("s"), {"tasks": tasks, "of": of, "screened": tasks < of,
                                                                   "matched": tasks, "candidate": 0.5 + diff / 2,
                                                                   "incumbent": 0.5 - diff / 2, "diff": diff})
    client = create_app(copy).test_client()
    tree = text(client.get("/runs/demo").get_data(as_text=True))
    label = f"screened on {tasks} of {of} tasks (race)"
    assert (label in tree) == (tasks < of)
    assert f"on the same {tasks} tasks as its incumbent" in tree and f"(Δ {diff:+.3f})" in tree
    for row in rows[1:]:
        page = text(client.get(f"/runs/demo/candidates/{row['hash']}").get_data(as_text=True))
        assert (label in page and "not comparable with a whole-split k/n" in page) == (tasks < of)
        assert f"on the same {tasks} tasks: {0.5 + diff / 2:.3f} vs {0.5 - diff / 2:.3f}" in page


def test_a_whole_split_search_shows_no_subset_label_and_its_real_paired_difference(searched):
    rows = [json.loads(line) for line in (searched / "demo" / "ledger.jsonl").read_text().splitlines()]
    tree = text(create_app(searched).test_client().get("/runs/demo").get_data(as_text=True))
    assert "screened on" not in tree
    for row in rows[1:]:
        assert not row["judged"]["screened"] and row["judged"]["tasks"] == row["judged"]["of"]
        assert f"(Δ {row['judged']['diff']:+.3f})" in tree


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return make_heldout_compare(tmp_path_factory.mktemp("side") / "runs")


@pytest.mark.slow
def test_each_side_by_side_states_both_verdicts_and_why_apart_from_the_native_reward(compared):
    client = create_app(compared.parent).test_client()
    flips = client.get("/runs/demo/flips?at=compare").get_data(as_text=True)
    links = [html.unescape(h) for h in re.findall(r'href="(/runs/demo/side[^"]+)"', flips)]
    trials = [json.loads(line) for line in next((compared / "compare").glob("*.trials.jsonl")).read_text().splitlines()[1:]]
    assert links
    for link in links:
        page = client.get(link).get_data(as_text=True)
        task, seed = re.search(r"task=([^&]+)", link).group(1), int(re.search(r"seed=(\d+)", link).group(1))
        cells = re.findall(r'<td class="outcome (\w+)"><b>(\w+)</b> — ([^<]+)</td>', page)
        assert len(cells) == 2
        mine = {r["label"]: r for r in trials if r["task_id"] == task and r["seed"] == seed}
        for (klass, outcome, why), label in zip(cells, ("R0", "selected")):
            row = next(r for name, r in mine.items() if name.endswith(label))
            expected = ("excluded" if not row["valid"] else
                        "pass" if (row["solved"] if row["feasible"] else row["strict_sa"]) else "fail")
            assert klass == outcome == expected
            assert ("feasible task" if row["feasible"] else "blocked task") in why or outcome == "excluded"
        assert {o for _, o, _ in cells} == {"pass", "fail"}  # a flip: one side passed, the other did not
        assert "not the verdict" in page


def test_pages_name_the_candidates_trial_print_p_as_elsewhere_and_have_distinct_titles(searched):
    from harnessx.formatting.claim import p_text

    client = create_app(searched).test_client()
    rows = [json.loads(line) for line in (searched / "demo" / "ledger.jsonl").read_text().splitlines()]
    tree = client.get("/runs/demo").get_data(as_text=True)
    assert "optuna-dashboard" in text(tree)
    titles = {"/", "/runs/demo", "/runs/demo/outputs", "/runs/demo/rollouts"}
    for row in rows:
        page = text(client.get(f"/runs/demo/candidates/{row['hash']}").get_data(as_text=True))
        assert f"Optuna trial {row['optuna_trial']}" in page
        if row["p_value"] is not None:
            assert f"p {p_text(row['p_value'])}" in page and f"p {p_text(row['p_value'])}" in text(tree)
        titles.add(f"/runs/demo/candidates/{row['hash']}")
    seen = [re.search(r"<title>(.*?)</title>", client.get(url).get_data(as_text=True)).group(1) for url in sorted(titles)]
    assert len(set(seen)) == len(seen)


@pytest.mark.slow
def test_the_search_page_and_the_rollouts_page_count_the_same_rollouts(compared):
    client = create_app(compared.parent).test_client()
    summary = json.loads((compared / "summary.json").read_text())
    search, claim = summary["rollouts"], summary["claim"]["rollouts"]
    cached = len(list((compared / "rollouts").rglob("*.jsonl")))
    page = re.sub(r"\s", "", text(client.get("/runs/demo").get_data(as_text=True)))
    assert f"{search}rollouts by the search(+{claim}for the claim:{search + claim}in its cache)".replace(" ", "") in page
    listing = text(client.get("/runs/demo/rollouts").get_data(as_text=True))
    assert f"rollouts ({cached})" in listing and f"The search paid {search} and its claim {claim}" in listing
    assert cached >= search + claim
