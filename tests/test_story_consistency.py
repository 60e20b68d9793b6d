"""One story, the same numbers, in every tool a user opens: a small simulated search (R0 + 2 rounds x 2)
with its certified claim, then `compare --split heldout`, `diff --json` and `report`, all through the
CLI. The claim (selected − R0 on the held-out split: difference, CI, n, p) and the held-out flips
(gained, lost, out of how many trials) are read from the CLI's JSON and printed line, the report's
HTML, the viewer over HTTP, the MLflow parent and compare runs, and the Optuna study, and must be the
same numbers; no tool prints a p value as 0.000."""

from __future__ import annotations

import html
import json
import re
import urllib.request

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app

pytestmark = pytest.mark.slow


def text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def cli(*args: str) -> str:
    out = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    return " ".join(out.output.split())  # a printed line may wrap at the terminal's width


def pp(v: float) -> str:  # how every tool writes a difference in percentage points
    return f"{100 * v:+.1f}"


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    import os

    folder = tmp_path_factory.mktemp("story")
    here = os.getcwd()
    os.chdir(folder)
    try:
        searched = cli("search", "--env", "retail", "--rounds", "2", "--proposals", "2", "--sources", "6",
                       "--name", "s", "--accept", "greedy", "--concurrency", "4")
        compared = cli("compare", "runs/s", "--split", "heldout")
        cli("diff", "runs/s", "--split", "heldout", "--json", "flips.json")
        cli("report", "runs/s")
    finally:
        os.chdir(here)
    claim = json.loads((folder / "runs/s/claim.json").read_text())
    assert claim["split"] == "heldout" and claim["difference"] is not None
    flips = json.loads((folder / "flips.json").read_text())
    return {"folder": folder, "claim": claim, "flips": flips, "search_out": searched, "compare_out": compared}


def claim_strings(claim: dict) -> list[str]:
    lo, hi = claim["ci"]
    p = claim["p_value"]
    return [f"{pp(claim['difference'])} pp", f"[90% CI {pp(lo)}", f"{pp(hi)} pp]",
            f"one-sided p {p:.4f}" if p >= 0.001 else f"one-sided p {p:.1e}", f"n={claim['valid_n']}"]


def flip_string(flips: dict) -> str:
    return f"{flips['gained']} gained, {flips['lost']} lost of {flips['compared']} trials compared"


def test_the_cli_json_and_printed_line_agree(story):
    claim, flips = story["claim"], story["flips"]
    summary = json.loads((story["folder"] / "runs/s/summary.json").read_text())
    assert summary["claim"] == claim
    assert [s for s in claim_strings(claim) if s not in story["search_out"]] == []
    compare = next((story["folder"] / "runs/s/compare").glob("compare-heldout-*.json"))
    pair = json.loads(compare.read_text())["splits"]["heldout"]["differences"][0]
    measured = pair["metrics"][claim["objective"]]
    assert pair["first"] == "s:selected" and measured["diff"] == pytest.approx(claim["difference"])
    assert measured["n"] == claim["valid_n"] == flips["compared"] + flips["excluded"]
    assert f"{pp(measured['diff'])} pp" in story["compare_out"]
    assert flips["split"] == "heldout" and flips["first"] == "R0" and flips["second"] == "selected"


def test_the_report_html_says_the_same(story):
    page = text((story["folder"] / "runs/s/report/report.html").read_text())
    assert all(s in page for s in claim_strings(story["claim"]))
    assert flip_string(story["flips"]) in page
    assert "p 0.000" not in page.replace("p 0.0005", "")


def test_the_viewer_over_http_says_the_same(story):
    from tests.test_viewer_browser import viewer_at

    with viewer_at(story["folder"] / "runs") as base:
        def get(path: str) -> str:
            with urllib.request.urlopen(base + path, timeout=120) as response:
                return text(response.read().decode())

        search = get("/runs/s")
        flips = get("/runs/s/flips?a=R0&b=selected&at=compare")
        runs = get("/")
    assert all(s in search for s in claim_strings(story["claim"]))
    f = story["flips"]
    assert f"{f['gained']} gained, {f['lost']} lost of {f['compared']} trials compared on the heldout split" in flips
    summary = json.loads((story["folder"] / "runs/s/summary.json").read_text())
    # the runs list and the search page count the same rollouts: the search's, plus the claim's
    assert f"{summary['rollouts']} rollouts by the search (+ {story['claim']['rollouts']} for the claim" in search
    assert f"{summary['rollouts']} + {story['claim']['rollouts']} claim" in runs
    for page in (search, flips, runs):
        assert not re.search(r"\bp 0\.000\b(?!\d)", page)


def test_mlflow_runs_hold_the_same_numbers(story):
    from mlflow import MlflowClient

    claim, flips = story["claim"], story["flips"]
    recorded = json.loads((story["folder"] / "runs/s/mlflow.json").read_text())
    client = MlflowClient(tracking_uri=recorded["tracking_uri"])
    parent = client.get_run(recorded["parent_run"])
    m = parent.data.metrics
    assert (m["claim_difference"], m["claim_ci_low"], m["claim_ci_high"], m["claim_p_value"], m["claim_valid_n"]) == \
        pytest.approx((claim["difference"], *claim["ci"], claim["p_value"], claim["valid_n"]))
    assert parent.data.tags["harnessx.claim"] == claim["status"]
    run_id = re.search(r"logged to MLflow as run (\w+)", story["compare_out"]).group(1)
    compare = client.get_run(run_id)
    assert compare.data.tags["mlflow.parentRunId"] == parent.info.run_id
    c = compare.data.metrics
    key = f"heldout.diff.s:selected.{claim['objective']}"
    assert c[key] == pytest.approx(claim["difference"]) and c[key + ".n"] == claim["valid_n"]
    assert (c["flips_gained_heldout"], c["flips_lost_heldout"], c["flips_compared_heldout"]) == \
        (flips["gained"], flips["lost"], flips["compared"])


def test_the_optuna_study_holds_the_same_numbers(story):
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    claim, flips = story["claim"], story["flips"]
    storage = JournalStorage(JournalFileBackend(str(story["folder"] / "runs/s/optuna.log")))
    study = optuna.load_study(study_name="s", storage=storage)
    attrs = study.user_attrs
    assert {k: attrs["claim"][k] for k in ("difference", "ci", "p_value", "valid_n", "status")} == \
        {k: claim[k] for k in ("difference", "ci", "p_value", "valid_n", "status")}
    noted = attrs["compare_heldout"]
    assert (noted["flips_gained"], noted["flips_lost"], noted["flips_compared"]) == \
        (flips["gained"], flips["lost"], flips["compared"])
    assert noted["difference"] == pytest.approx(claim["difference"]) and noted["n"] == claim["valid_n"]
    # the dashboard shows attrs as text: the two lines a user reads there say the same
    assert all(s in attrs["claim_line"] for s in claim_strings(claim))
    assert flip_string(flips) in noted["line"] and f"{pp(claim['difference'])} pp" in noted["line"]
    selected = study.trials[attrs["selected_trial"]]
    assert selected.user_attrs["hash"] == claim["selected_hash"]
    assert study.trials[0].user_attrs["hash"] == claim["r0_hash"]
