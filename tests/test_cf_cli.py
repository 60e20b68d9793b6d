"""`harnessx cf eval|report`, `--env cf` in the shared commands, a search with the cf objective and
`compare` reading it."""

from __future__ import annotations

import json

import matplotlib.image
import pytest
from typer.testing import CliRunner

from harnessx.cli.common import console, err_console
from harnessx.cli.main import app
from harnessx.sim import load_profile, register_profile


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    """Tables and errors on one line each, so the assertions read them as printed."""
    for c in (console, err_console):
        monkeypatch.setattr(c, "_width", 400)


def invoke(*args, code=0):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


def test_cf_eval_prints_every_metric_for_both_conditions_and_report_writes_md_png_html(tmp_path):
    out = tmp_path / "cf"
    text = invoke("cf", "eval", "--split", "heldout", "--resamples", "300", "--out", str(out))
    for name in ("NAS (OK items) and KIS (IK items)", "Label counts", "Accuracy", "among answered",
                 "search rate", "abstention", "aligned among correct", "six outcomes", "Temporal cues",
                 "with search", "without search", "judge-free", "judged", "SIMULATED"):
        assert name in text, name
    data = json.loads((out / "cf-eval.json").read_text())
    assert set(data["conditions"]) == {"search", "none"}
    read = data["n_read"]  # what it read, used and skipped
    assert f"read {read} items; evaluated {data['n_items']} (heldout)" in " ".join(text.split())
    assert f"skipped {read - data['n_items']} (other splits)" in " ".join(text.split()) and read > data["n_items"]
    search = data["conditions"]["search"]
    assert search["n_trials"] == 32 and search["n_valid"] + sum(search["excluded"].values()) == 32
    assert search["n_resamples"] == 300 and "six_outcomes" in search and "six_outcomes" not in data["conditions"]["none"]
    assert data["harnesses"]["search"]["name"] == "cf-search" and data["harnesses"]["none"]["name"] == "cf-nosearch"

    invoke("cf", "report", str(out))
    md = (out / "report.md").read_text()
    assert "| with search | judge-free |" in md and "regime" in md and "SIMULATED" in md
    assert "<table>" in (out / "report.html").read_text()
    png = out / "figures" / "regime.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and matplotlib.image.imread(png).shape[0] > 100


def test_cf_eval_bad_input_is_one_clear_error(tmp_path):
    bad = tmp_path / "items.jsonl"
    bad.write_text('{"id": "q", "question": "?", "options": ["a"], "key": 1, "type": "IK", '
                   '"domain": "d", "rationale": "r"}\n')
    text = invoke("cf", "eval", "--items", str(bad), "--condition", "none", "--out", str(tmp_path / "o"), code=2)
    assert "items.jsonl:1" in text and "options" in text
    text = invoke("cf", "eval", "--condition", "sometimes", "--out", str(tmp_path / "o"), code=2)
    assert "--condition" in text
    assert "no cf-eval.json" in invoke("cf", "report", str(tmp_path), code=2)


def test_env_cf_works_in_the_shared_commands(tmp_path):
    text = " ".join(invoke("eval", "--harness", "cf-search", "--env", "cf", "--split", "heldout", "--sources", "8",
                           "--resamples", "200", "--out", str(tmp_path / "e")).split())
    assert "Confident Fools (with search)" in text and "NAS judge-free" in text and "KIS judged" in text


@pytest.mark.slow
def test_search_with_the_cf_objective_and_compare_reads_it(tmp_path):
    text = invoke("search", "--objective", "cf", "--env", "cf", "--space", "cf", "--rounds", "2", "--proposals", "2",
                  "--accept", "greedy", "--name", "cf", "--runs-dir", str(tmp_path), "--no-mlflow")
    assert "incumbent cf by round" in text and "cf (objective, mean)" in text
    ledger = [json.loads(line) for line in (tmp_path / "cf" / "ledger.jsonl").read_text().splitlines()]
    always = [r for r in ledger if "always-search" in r.get("rationale", "")]
    assert all(not r["accepted"] for r in always)           # the over-search trap never wins
    text = " ".join(invoke("compare", str(tmp_path / "cf"), "--split", "heldout", "--resamples", "300").split())
    assert "Confident Fools (with search)" in text and "NAS judge-free" in text
    [result] = (tmp_path / "cf" / "compare").glob("compare-heldout*.json")   # keyed by its settings
    data = json.loads(result.read_text())
    block = data["splits"]["heldout"]
    labels = list(block["harnesses"])
    for lb in labels:
        card = block["benchmarks"][lb]["cf"]
        assert card["n_trials"] == 32 and card["n_resamples"] == 3000 and card["nas"]["judge_free"]["n"] > 0
        assert block["values"][lb]["cf"]["n"] > 0
    if len(labels) > 1:  # a selected harness that differs from R0: paired differences of the per-item labels
        assert block["differences"][0]["values"]["cf"]["n"] > 0 and "per-item values, paired differences" in text


def test_cf_eval_on_your_own_items_and_corpus(tmp_path):
    articles = [{"id": "a1", "title": "Qorvane Labs prices the Tessel 9 drone", "date": "2027-02-03",
                 "url": "https://example.org/a1", "text": "Qorvane Labs said the Tessel 9 drone costs $740."},
                {"id": "a2", "title": "Weather", "date": "2027-02-04", "url": "https://example.org/a2",
                 "text": "Rain is expected across the region."}]
    items = [{"id": "ok1", "question": "What does the Tessel 9 drone from Qorvane Labs cost?",
              "options": ["$510", "$740", "$990", "$260"], "key": 2, "type": "OK", "domain": "technology",
              "source": "https://example.org/a1", "rationale": "Qorvane Labs said the Tessel 9 costs $740.",
              "query": "Qorvane Labs Tessel 9 price"},
             {**GOOD_IK}]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(a) + "\n" for a in articles))
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    base = load_profile("cf-over-searcher")
    model = register_profile(base.model_copy(update={"name": "cf-test-reader",
                                                     "rates": {**base.rates, "cf_read": 0.9999, "cf_malformed": 1e-4}}))
    out = tmp_path / "mine"
    invoke("cf", "eval", "--items", str(tmp_path / "items.jsonl"), "--corpus", str(tmp_path / "corpus.jsonl"),
           "--model", model, "--condition", "search", "--resamples", "200", "--out", str(out))
    data = json.loads((out / "cf-eval.json").read_text())["conditions"]["search"]
    assert data["n_trials"] == 2 and data["search_rate"]["OK"]["k"] == 1
    assert data["accuracy"]["OK"]["k"] == 1          # it read $740 from the user's corpus


GOOD_IK = {"id": "ik1", "question": "Which company makes the iPhone?", "options": ["Apple", "Sony", "Nokia", "LG"],
           "key": 1, "type": "IK", "domain": "technology", "rationale": "Apple makes the iPhone."}
