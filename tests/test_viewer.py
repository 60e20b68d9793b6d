"""`harnessx view` pages through Flask's test client: the tree, lineage, candidate table, trajectory
status (verified / tampered), HTML escaping, pagination and refusals."""

from __future__ import annotations

import json
import re

import pytest

from harnessx.viewer import create_app
from harnessx.viewer.lineage import chain
from tests.viewer_fixtures import SCRIPT, agent_abandon_key, make_search, script_trajectory, tamper


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    runs = tmp_path_factory.mktemp("viewer") / "runs"
    run = make_search(runs)
    keys = {"abandon": agent_abandon_key(run), "script": script_trajectory(run)}
    keys["tampered"] = tamper(run, set(keys.values()))
    return runs, run, keys, create_app(runs).test_client()


def ledger(run):
    return [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]


def test_runs_page_lists_the_search_with_model_status_and_rollouts(site):
    runs, run, _, client = site
    page = client.get("/").get_data(as_text=True)
    summary = json.loads((run / "summary.json").read_text())
    assert "demo" in page and "sim/baseline" in page and "simulated" in page and "finished" in page
    assert f"<td>{summary['rollouts']}</td>" in page


def test_tree_shows_every_candidate_of_the_ledger_under_its_parent(site):
    _, run, _, client = site
    page = client.get("/runs/demo").get_data(as_text=True)
    rows = ledger(run)
    for row in rows:
        assert f'id="cand-{row["hash"]}-{row["round"]}-{row["slot"]}"' in page
    accepted = [r for r in rows if r["accepted"]]
    assert page.count('class="node accepted"') == len(accepted)
    # every non-R0 node is nested inside its parent's <li>
    for row in rows[1:]:
        parent_at = page.index(f'data-hash="{row["parent"]}"')
        assert page.index(f'id="cand-{row["hash"]}-{row["round"]}-{row["slot"]}"') > parent_at
    # objective k/n with its Wilson interval
    r0 = rows[0]["objective"]
    assert re.search(rf"{r0['k']}/{r0['n']} \(\d+\.\d% \[\d+\.\d, \d+\.\d\]\)", page)


def test_lineage_points_each_selected_line_at_the_round_that_introduced_it(site):
    _, run, _, client = site
    page = client.get("/runs/demo").get_data(as_text=True)
    rows = ledger(run)
    selected_hash = json.loads((run / "summary.json").read_text())["selected"]["hash"]
    path = chain(rows, selected_hash)
    assert path[0]["round"] == 0 and path[-1]["hash"] == selected_hash
    # R0's first system-prompt line comes from R0
    assert 'href="#cand-' + rows[0]["hash"] + '-0-0"' in page
    if len(path) > 1:  # the accepted edit's anchor appears as an origin
        last = path[-1]
        assert f'href="#cand-{last["hash"]}-{last["round"]}-{last["slot"]}"' in page


def test_candidate_table_filters_by_family_and_paginates(site, monkeypatch):
    _, run, _, client = site
    r0 = ledger(run)[0]["hash"]
    page = client.get(f"/runs/demo/candidates/{r0}").get_data(as_text=True)
    scores = [json.loads(line) for line in (run / "scores" / f"{r0}.jsonl").read_text().splitlines()]
    assert f"({len(scores)} of {len(scores)} trials)" in page
    blocked = [s for s in scores if s["family"] == "infeasible"]
    filtered = client.get(f"/runs/demo/candidates/{r0}?family=infeasible").get_data(as_text=True)
    assert f"({len(blocked)} of {len(scores)} trials)" in filtered
    import harnessx.viewer.app as app_module
    monkeypatch.setattr(app_module, "PAGE", 5)
    paged = create_app(run.parent).test_client().get(f"/runs/demo/candidates/{r0}?page=2").get_data(as_text=True)
    assert f"page 2 of {-(-len(scores) // 5)}" in paged and paged.count("/trajectories/") == 5


def test_trajectory_shows_the_abandon_event_with_its_author_and_a_verified_chain(site):
    _, _, keys, client = site
    page = client.get(f"/runs/demo/trajectories/{keys['abandon']}").get_data(as_text=True)
    assert "hash chain: <b>verified</b>" in page
    assert re.search(r'class="event abandon abandon[^"]*" data-kind="abandon" data-author="agent"', page)
    assert "ABANDON by agent" in page and "judge <b>deterministic" in page


def test_a_tampered_trajectory_shows_as_tampered(site):
    _, _, keys, client = site
    page = client.get(f"/runs/demo/trajectories/{keys['tampered']}").get_data(as_text=True)
    assert "hash chain: <b>tampered</b>" in page and "content does not match its hash" in page


def test_trajectory_text_is_escaped_never_markup(site):
    _, _, keys, client = site
    page = client.get(f"/runs/demo/trajectories/{keys['script']}").get_data(as_text=True)
    assert "<script>document.title" not in page and "<b>bold?</b>" not in page
    assert "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in page
    assert SCRIPT not in page


def test_bad_names_and_paths_are_404_not_errors(site):
    _, _, _, client = site
    assert client.get("/runs/nosuch").status_code == 404
    assert client.get("/runs/demo/trajectories/not-a-key").status_code == 404
    assert client.get("/runs/demo/trajectories/" + "ab" * 12).status_code == 404
    assert client.get("/runs/demo/candidates/ffffffffffffffff").status_code == 404
    assert client.get("/runs/demo/files/../../etc/passwd").status_code == 404
    assert client.get("/runs/demo/files/config.json").status_code == 404


def test_view_refuses_a_non_loopback_host_and_a_missing_folder(tmp_path):
    from typer.testing import CliRunner

    from harnessx.cli.main import app

    out = CliRunner().invoke(app, ["view", str(tmp_path), "--host", "0.0.0.0"])
    assert out.exit_code == 2 and "not a loopback address" in " ".join(out.output.split())
    out = CliRunner().invoke(app, ["view", str(tmp_path / "nope")])
    assert out.exit_code == 2 and "does not exist" in " ".join(out.output.split())
    out = CliRunner().invoke(app, ["view", str(tmp_path), "--host", "localhost", "--port", "99999"])
    assert out.exit_code == 2 and "--port" in out.output  # localhost passes; the port is what is refused


def test_outputs_page_shows_compare_tables_as_text_and_serves_their_figures(site):
    runs, run, _, client = site
    out = run / "compare"
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "compare-heldout.md").write_text("| metric | R0 | selected |\n|---|---|---|\n| Joint | 4/12 <i>x</i> | 7/12 |\n")
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
    (out / "figures" / "family_bars-heldout.png").write_bytes(png)
    page = client.get("/runs/demo/outputs").get_data(as_text=True)
    assert "compare/compare-heldout.md" in page and "| Joint | 4/12 &lt;i&gt;x&lt;/i&gt; | 7/12 |" in page
    assert 'src="/runs/demo/files/compare/figures/family_bars-heldout.png"' in page
    assert client.get("/runs/demo/files/compare/figures/family_bars-heldout.png").data == png
    assert "compare / probe outputs (1)" in client.get("/runs/demo").get_data(as_text=True)


def test_a_corrupt_trajectory_file_shows_as_unreadable_not_an_error(site):
    _, run, _, client = site
    key = "c0" * 12
    path = run / "rollouts" / key[:2] / f"{key}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"seq": 0, "kind": "start"\n\xff\xfe not json\n')
    response = client.get(f"/runs/demo/trajectories/{key}")
    assert response.status_code == 200
    assert "hash chain: <b>unreadable</b>" in response.get_data(as_text=True)
