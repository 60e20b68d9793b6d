"""`harnessx kapro eval|report` end to end on the simulated agent, `--kaware-dir`, the LLM pass
judge (scripted), and a `kas` search that `compare` reads next to an ASA search."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.harness import load_preset
from harnessx.kapro.run import KaproRunConfig, run_kapro_eval
from harnessx.models.providers import register_script
from harnessx.search import Search, SearchConfig
from tests.kaware_fixture import write_kaware
from tests.test_kapro_data import EXTERNAL, HYBRID


def invoke(*args, code=0):
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "300"})
    assert result.exit_code == code, result.output + str(result.exception)
    return result.output


@pytest.mark.slow
def test_kapro_eval_builtin_prints_every_metric_and_writes_report(tmp_path):
    out = invoke("kapro", "eval", "--split", "heldout", "--resamples", "200", "--distractors", "4", "--out", tmp_path)
    for word in ("SIMULATED", "Pass", "Acc_know", "Acc_act", "KAS", "Avg (valid-weighted)", "Kc/Ac", "Kc/Aw",
                 "Kw/Ac", "Kw/Aw", "DirGap", "Know Under", "Act Over", "C̄_KA", "tool calls", "multi-hop",
                 "Distractor experiment"):
        assert word in out, word
    data = json.loads((tmp_path / "kapro-eval.json").read_text())
    m = data["metrics"]
    assert set(m["per_subspace"]) == {"external", "hybrid", "internal"} and m["all"]["n_trials"] == 24
    assert m["all"]["n_valid"] + sum(m["all"]["excluded"].values()) == 24
    assert data["harness"]["max_rounds"] == 10 and data["distractor_run"]["distractors"] == 4
    assert set(data["distractor_deltas"]) == {"external", "hybrid", "internal"}
    for name in ("kapro-report.md", "kapro-report.html", "figures/kapro-quadrants.png"):
        assert (tmp_path / name).stat().st_size > 200
    (tmp_path / "kapro-report.md").unlink()
    assert "wrote" in invoke("kapro", "report", tmp_path) and (tmp_path / "kapro-report.md").is_file()


def test_kapro_eval_on_kaware_files(tmp_path):
    """The published layout (subfolders, dict tool_doc, comma-separated targets) through the CLI on the
    default held-out split; a bad record is reported on one line and the rest run."""
    data_dir = write_kaware(tmp_path / "kaware", {"Hybrid_Function/broken.jsonl": json.dumps({**HYBRID, "index": 7,
                                                                                             "boundary": "P9"})})
    out = invoke("kapro", "eval", "--kaware-dir", data_dir, "--epochs", "2", "--resamples", "100",
                 "--out", tmp_path / "out")
    data = json.loads((tmp_path / "out" / "kapro-eval.json").read_text())
    assert data["n_items"] == 16 and data["n_tasks"] == 6 and "KAware" in data["source"] and "Acc_know" in out
    assert data["unread"] == [("Hybrid_Function/broken.jsonl: 1 of 1 record(s) not read; first at line 1, field "
                               "'boundary': 'P9' (expected P1 (external), P2 (hybrid) or P3 (internal))")]
    assert "not read: Hybrid_Function/broken.jsonl" in out
    # what was read, used and skipped; the Avg row's weights are a note, not its exclusions
    assert ("read 16 items from KAware files in kaware (1 records not read); evaluated 6 heldout tasks x 2 "
            "epoch(s) = 12 rollouts; skipped 10 items of the other split") in " ".join(out.split())
    assert "Avg weights (valid trials per subspace):" in out
    avg_row = next(line for line in out.splitlines() if "Avg (valid-weighted)" in line and "%" not in line[:5])
    assert "weights" not in avg_row
    m = data["metrics"]
    assert set(m["per_subspace"]) == {"external", "hybrid", "internal"} and set(m["per_hop"]) == {
        "single-hop", "parallel", "multi-hop"}
    assert m["all"]["n_trials"] == 12 and m["all"]["n_valid"] > 0
    # parallel and multi-tool items replay every tool's own response: the simulated agent that calls
    # both of a parallel item's tools sees both answers in its trajectory
    replies = [json.loads(line) for f in (tmp_path / "out" / "rollouts").rglob("*.jsonl")
               for line in f.read_text().splitlines() if line.strip()]
    seen = {e["data"].get("content") for e in replies if e.get("kind") == "tool_result"}
    assert {"High 06:10", '{"knots": 12}'} <= seen or {"High 07:10", '{"knots": 13}'} <= seen, sorted(map(str, seen))


def test_kapro_bad_input_is_one_clear_error(tmp_path):
    (tmp_path / "bad.jsonl").write_text(json.dumps({**EXTERNAL, "boundary": "P9"}) + "\n")
    out = invoke("kapro", "eval", "--kaware-dir", tmp_path, "--out", tmp_path / "o", code=2)
    assert "bad.jsonl: 1 of 1 record(s) not read; first at line 1, field 'boundary'" in out
    assert not (tmp_path / "o").exists()
    assert "no kapro-eval.json" in invoke("kapro", "report", tmp_path, code=2)


def test_llm_pass_judge_through_litellm(tmp_path):
    verdicts = iter(['{"content": "fine", "answer_status": "Solved"}', "not json"] * 100)
    judge = register_script("kapro-judge", lambda messages, tools, md: {"content": next(verdicts)})
    data = run_kapro_eval(KaproRunConfig(harness=load_preset("kapro"), split="heldout", judge_model=judge,
                                         n_resamples=100, out=tmp_path))
    m = data["metrics"]["all"]
    assert data["judge"] == f"llm:{judge}"
    assert m["pass"]["value"] == 1.0  # every usable verdict was "Solved"
    assert m["excluded"].get("judge_failure", 0) >= 1  # an unusable verdict excludes the trial, never a 0


@pytest.mark.slow
def test_kas_search_runs_and_compare_reads_it_next_to_an_asa_search(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kas_run = Search(SearchConfig.of(objective="kas", env="kapro", space="kapro", rounds=1, proposals=1,
                                  runs_dir="runs", tracking_uri=None))
    result = __import__("asyncio").run(kas_run.run())
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary["objective"] == "kas" and "kas_task" in summary["r0"]["scorecard"]["values"]
    sa_run = Search(SearchConfig.of(objective="sa", env="toy", rounds=1, proposals=1, runs_dir="runs", tracking_uri=None))
    __import__("asyncio").run(sa_run.run())
    # the ASA-selected harness (and the KAS-selected one) on KAPRO: KAS next to ASA metrics
    out = invoke("compare", "runs/kas-kapro", "runs/sa-toy", "--env", "kapro", "--no-r0", "--resamples", "200",
                 "--out", "cmp-kapro")
    assert "KAPRO values" in out and "KAS % (harmonic mean" in out and "Solve" in out
    [compare_file] = Path("cmp-kapro").glob("compare-heldout-*.json")  # one file per distinct evaluation
    block = json.loads(compare_file.read_text())["splits"]["heldout"]
    assert len(block["values"]) == 2 and all({"j_know", "j_act", "kas_task"} <= set(v) for v in block["values"].values())
    # and the reverse: the KAS-selected harness on the ASA suite shows strict SA, no KAPRO table
    out = invoke("compare", "runs/kas-kapro", "runs/sa-toy", "--env", "toy", "--split", "search", "--no-r0",
                 "--resamples", "200", "--out", "cmp-toy")  # the toy suite has only a search split
    assert "Strict SA" in out and "KAPRO values" not in out
