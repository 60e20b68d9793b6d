"""Held-out flips and every run kind in the viewer (Flask's test client) and in `harnessx diff`: a
default search's held-out compare stores both harnesses' per-task, per-seed outcomes with their rollout
keys; the flip page, the side-by-side and `harnessx diff <compare-out>` read them; the runs list names
the model and rollouts of compare/eval/benchmark folders; the task table's filters and sort; the links
between a trajectory, its candidate and its parent's rollout; the outputs page shows the HTML report."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app as cli
from harnessx.comparison.compare_trials import CompareRun
from harnessx.comparison.flips import flips
from harnessx.search.objectives import get_objective
from harnessx.viewer.app import create_app
from harnessx.viewer.tasktable import failed_every_seed, outcome

from tests.viewer_fixtures import make_heldout_compare


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    runs = tmp_path_factory.mktemp("heldout") / "runs"
    run = make_heldout_compare(runs)
    return runs, run, create_app(runs).test_client()


def heldout_report(run):
    compare = CompareRun(run / "compare")
    a, b = compare.resolve("R0"), compare.resolve("selected")
    return compare, flips(compare.trials(a), compare.trials(b), get_objective("joint"), ("R0", "selected"))


def text(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


@pytest.mark.slow
def test_compare_stores_both_harnesses_heldout_trials_with_rollout_keys(site):
    _, run, _ = site
    compare, report = heldout_report(run)
    assert compare.split == "heldout"
    data = json.loads(next((run / "compare").glob("compare-heldout-*.json")).read_text())
    for name in ("R0", "selected"):
        trials = compare.trials(compare.resolve(name))
        assert len(trials) == data["splits"]["heldout"]["n_tasks"] * len(data["seeds"]) > 0
        assert {s.split for s, _ in trials} == {"heldout"}
        assert all((run / "rollouts" / key[:2] / f"{key}.jsonl").is_file() for _, key in trials)
    assert report.compared > 0 and report.matched == report.compared + report.excluded


def test_diff_on_the_compare_prints_the_heldout_flips_and_writes_the_same_json(site, tmp_path):
    _, run, _ = site
    _, report = heldout_report(run)
    out = CliRunner().invoke(cli, ["diff", str(run / "compare"), "R0", "selected", "--json", str(tmp_path / "d.json")])
    assert out.exit_code == 0, out.output
    said = " ".join(out.output.split())
    assert (f"R0 -> selected on the heldout split (no candidate was selected on it), objective joint: "
            f"{len(report.gained)} gained, {len(report.lost)} lost of {report.compared} trials") in said
    written = json.loads((tmp_path / "d.json").read_text())
    assert written["split"] == "heldout" and written["flips"] == report.to_dict()["flips"]
    # the run folder with --split heldout reads the same compare
    again = CliRunner().invoke(cli, ["diff", str(run), "--split", "heldout", "--json", str(tmp_path / "e.json")])
    assert again.exit_code == 0 and json.loads((tmp_path / "e.json").read_text())["flips"] == written["flips"]


def test_diff_names_a_split_the_compare_did_not_run(site):
    _, run, _ = site
    out = CliRunner().invoke(cli, ["diff", str(run / "compare"), "--split", "independent"])
    assert out.exit_code == 2 and "'independent' was not run" in " ".join(out.output.split())


@pytest.mark.slow
def test_search_page_links_to_the_heldout_flips_and_a_side_by_side(site):
    _, run, client = site
    _, report = heldout_report(run)
    page = text(client, "/runs/demo")
    link = re.search(r'id="heldout-flips-link" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    flip_page = text(client, link)
    summary = " ".join(re.search(r'id="flip-summary">(.*?)</p>', flip_page, re.S).group(1).split())
    assert f"<b>{len(report.gained)}</b> gained, <b>{len(report.lost)}</b> lost of {report.compared}" in summary
    assert "heldout split" in summary and "Selection data" not in summary
    assert flip_page.count('class="side"') == len(report.flips)
    if report.flips:
        first = report.flips[0]
        side = re.search(r'class="side" href="([^"]+)"', flip_page).group(1).replace("&amp;", "&")
        assert "at=compare" in side
        shown = text(client, side)
        assert f"{first.task_id} (seed {first.seed})" in shown
        assert f"/trajectories/{first.first_key}" in shown and f"/trajectories/{first.second_key}" in shown


def test_runs_list_names_model_and_rollouts_of_compare_eval_and_benchmark_folders(site):
    runs, run, client = site
    out = CliRunner().invoke(cli, ["compare", str(run), "--out", str(runs / "cmp"), "--concurrency", "4"])
    assert out.exit_code == 0, out.output
    rows = sum(1 for _ in next((runs / "cmp").glob("*.trials.jsonl")).open()) - 1
    bench = runs / "kapro-eval"
    (bench / "rollouts" / "ab").mkdir(parents=True)
    for i in range(3):
        (bench / "rollouts" / "ab" / f"ab{i:022d}.jsonl").write_text("{}\n")
    (bench / "kapro-eval.json").write_text(json.dumps({"model": "openai/some-model", "simulated": False, "env": "kaware"}))
    page = text(client, "/")
    cells = {m.group(1): m.group(0) for m in re.finditer(r'<tr><td><a href="/runs/([^"]+)">.*?</tr>', page, re.S)}
    assert re.search(r"<td>compare</td>\s*<td>sim/baseline[^<]*<span class=\"badge sim\">", cells["cmp"])
    assert f"<td>{rows}</td>" in cells["cmp"] and rows > 0
    assert re.search(r"<td>kapro</td>\s*<td>openai/some-model</td><td>kaware</td>", cells["kapro-eval"])
    assert "<td>3</td>" in cells["kapro-eval"]
    # a benchmark run's rollouts are listed and open
    listing = text(client, re.search(r'id="rollouts-link" href="([^"]+)"', text(client, "/runs/kapro-eval")).group(1))
    keys = re.findall(r'href="/runs/kapro-eval/trajectories/([0-9a-f]+)"', listing)
    assert keys == [f"ab{i:022d}" for i in range(3)]
    assert client.get(f"/runs/kapro-eval/trajectories/{keys[0]}").status_code == 200
    # the standalone compare's page links to its flips, and they open
    cmp_page = text(client, "/runs/cmp")
    assert cmp_page.count('class="contender"') == 2  # each contender's per-task trials
    link = re.search(r'id="run-flips-link" href="([^"]+)"', cmp_page).group(1).replace("&amp;", "&")
    flip_page = text(client, link)
    assert "gained" in flip_page
    # its rollouts live in the search run's cache; they open from the compare's own pages
    keys = re.findall(r'href="/runs/cmp/trajectories/([0-9a-f]+)"', flip_page)
    assert keys and "hash chain: <b>verified</b>" in text(client, f"/runs/cmp/trajectories/{keys[0]}")


def test_task_table_filters_by_outcome_every_seed_and_flip_and_sorts(site):
    _, run, client = site
    ledger = [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]
    child = next(r for r in ledger if r.get("parent"))
    rows = [json.loads(line) for line in (run / "scores" / f"{child['hash']}.jsonl").read_text().splitlines()]
    url = f"/runs/demo/candidates/{child['hash']}"
    fails = [r for r in rows if outcome(r) == "fail"]
    assert f"({len(fails)} of {len(rows)} trials)" in text(client, url + "?outcome=fail")
    stuck = failed_every_seed(rows)
    every = [r for r in rows if r["task_id"] in stuck]
    assert f"({len(every)} of {len(rows)} trials)" in text(client, url + "?every_seed=1")
    parent = [json.loads(line) for line in (run / "scores" / f"{child['parent']}.jsonl").read_text().splitlines()]
    before = {(r["task_id"], r["seed"]): outcome(r) for r in parent}
    changed = [r for r in rows if before.get((r["task_id"], r["seed"])) not in (None, outcome(r))
               and "excluded" not in (outcome(r), before[(r["task_id"], r["seed"])])]
    flipped = text(client, url + "?flipped=any")
    assert f"({len(changed)} of {len(rows)} trials)" in flipped
    ids = re.findall(r'<td class="task"><a [^>]*>([^<]+)</a>', text(client, url + "?sort=-task_id"))
    assert ids == sorted(ids, reverse=True) and len(ids) == min(len(rows), 100)


def test_false_abstention_that_did_not_happen_is_drawn_good(site):
    _, run, client = site
    r0 = json.loads((run / "ledger.jsonl").read_text().splitlines()[0])["hash"]
    page = text(client, f"/runs/demo/candidates/{r0}?family=%E2%80%94")  # feasible tasks (no family)
    assert '<td class="gate"><span class="yes">✗</span></td>' in page


def test_trajectory_links_to_its_candidate_and_the_parents_rollout_of_the_same_task(site):
    _, run, client = site
    ledger = [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]
    child = next(r for r in ledger if r.get("parent"))
    row = json.loads((run / "scores" / f"{child['hash']}.jsonl").read_text().splitlines()[0])
    parent = next(json.loads(line) for line in (run / "scores" / f"{child['parent']}.jsonl").read_text().splitlines()
                  if json.loads(line)["task_id"] == row["task_id"] and json.loads(line)["seed"] == row["seed"])
    page = text(client, f"/runs/demo/trajectories/{row['key']}")
    assert f'id="candidate-link" href="/runs/demo/candidates/{child["hash"]}"' in page
    assert f'id="parent-rollout" href="/runs/demo/trajectories/{parent["key"]}"' in page
    candidate = text(client, f"/runs/demo/candidates/{child['hash']}")
    assert f'id="parent-link" href="/runs/demo/candidates/{child["parent"]}"' in candidate
    assert 'id="parent-flips" href="/runs/demo/flips?' in candidate


def test_outputs_page_shows_the_html_report_sandboxed(site):
    _, run, client = site
    page = text(client, "/runs/demo/outputs")
    src = re.search(r'<iframe class="report" sandbox src="([^"]+\.html)"', page).group(1)
    response = client.get(src)
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert "sandbox" in response.headers["Content-Security-Policy"]
    assert "<table>" in response.get_data(as_text=True)


def test_heldout_trials_of_each_contender_are_a_table_whose_rollouts_open(site):
    _, run, client = site
    compare, report = heldout_report(run)
    selected = compare.trials(compare.resolve("selected"))
    page = text(client, "/runs/demo")
    link = re.search(r'id="heldout-selected" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    table = text(client, link)
    assert f"({len(selected)} of {len(selected)} trials)" in table and "heldout split" in table
    assert f"({len(report.flips)} of {len(selected)} trials)" in text(client, link + "&flipped=any")
    key = selected[0][1]
    assert f"/runs/demo/trajectories/{key}" in table
    rollout = text(client, f"/runs/demo/trajectories/{key}")
    back = re.search(r'id="contender-link" href="([^"]+)"', rollout).group(1).replace("&amp;", "&")
    assert "at=compare" in back and f"({len(selected)} of {len(selected)} trials)" in text(client, back)
    side = re.search(r'id="pair-side" href="([^"]+)"', rollout).group(1).replace("&amp;", "&")
    assert f"{selected[0][0].task_id} (seed {selected[0][0].seed})" in text(client, side)


def test_a_corrupt_trials_file_is_named_and_the_runs_list_still_opens(tmp_path):
    bad = tmp_path / "runs" / "bad"
    (bad / "rollouts" / "ab").mkdir(parents=True)
    contenders = [{"label": "a", "role": "file", "hash": "a" * 16}, {"label": "b", "role": "file", "hash": "b" * 16}]
    (bad / "compare-heldout-0.json").write_text(json.dumps({"model": "sim/baseline", "simulated": True,
                                                             "contenders": contenders}))
    (bad / "compare-heldout-0.trials.jsonl").write_text(json.dumps({"contenders": contenders}) + "\nnot json\n")
    key = "ab" * 12
    (bad / "rollouts" / "ab" / f"{key}.jsonl").write_text("{}\n")
    client = create_app(tmp_path / "runs").test_client()
    assert client.get("/").status_code == 200
    response = client.get(f"/runs/bad/trajectories/{key}")
    assert response.status_code == 409 and "compare-heldout-0.trials.jsonl" in response.get_data(as_text=True)
    flipped = client.get(f"/runs/bad/contenders/{'b' * 16}")
    assert flipped.status_code == 404 and "compare-heldout-0.trials.jsonl" in flipped.get_data(as_text=True)
