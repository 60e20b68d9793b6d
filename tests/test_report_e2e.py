"""End to end with the simulated agent: a run directory fabricated from real search-split
evaluations (R0 = A1, selected = C), then `compare` on the held-out split, both probes and
`report` through the CLI: tables, JSON, PNGs, an HTML page that references them, MLflow artifacts."""

import asyncio
import json

import matplotlib.image
import pytest
from typer.testing import CliRunner

from harnessx.agent.runner import Runner
from harnessx.envs import registry
from harnessx.cli.main import app
from harnessx.envs.toy import ToySuite, toy_tasks
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.models import ModelClient

MODEL = "sim/baseline"


class SplitToySuite(ToySuite):
    """The toy environment with a search split and a held-out split of distinct sources."""

    def __init__(self):
        super().__init__(n_sources=3)
        held = [t.model_copy(update={"id": f"h-{t.id}", "source_id": f"h-{t.source_id}"})
                for t in toy_tasks(5, split="heldout")]
        self._tasks = self._tasks + held


def fabricate_run(path, tracking_uri):
    """A run directory in the search's format, from real evaluations of R0 and the selected harness."""
    suite = SplitToySuite()
    runner = Runner(suite, ModelClient(MODEL))
    r0, selected = load_preset("A1"), load_preset("C")
    cards = {h.hash: asyncio.run(evaluate(runner, h, suite.tasks("search"), [0])).scorecard for h in (r0, selected)}
    path.mkdir(parents=True)
    r0.save(path / "r0.yaml")
    selected.save(path / "selected.yaml")
    config = {"objective": "joint", "env": "toy", "model": MODEL, "api_base": None, "proposer": "rules",
              "accept": "greedy", "rounds": 1, "proposals": 1, "seeds": [0], "tracking_uri": tracking_uri}
    (path / "config.json").write_text(json.dumps(config))
    rows = [{"round": i, "slot": 0, "hash": h.hash, "accepted": i == 1, "scorecard": cards[h.hash].to_dict(),
             "objective": {"name": "joint", "value": cards[h.hash].joint.value}} for i, h in enumerate((r0, selected))]
    (path / "ledger.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = {"model": MODEL, "simulated": True, "accepted_rounds": [1],
               "r0": {"hash": r0.hash, "scorecard": cards[r0.hash].to_dict()},
               "selected": {"hash": selected.hash, "round": 1, "scorecard": cards[selected.hash].to_dict()}}
    (path / "summary.json").write_text(json.dumps(summary))
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=tracking_uri)
    experiment = client.create_experiment("harnessx-search", artifact_location=(path.parent.parent / "artifacts").as_uri())
    run_id = client.create_run(experiment, run_name="e2e").info.run_id
    (path / "checkpoint.json").write_text(json.dumps({"mlflow_parent": run_id}))
    return run_id


def invoke(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def png_ok(path):
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert matplotlib.image.imread(path).shape[0] > 100


@pytest.mark.slow
def test_compare_probes_and_report_on_the_heldout_split(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(registry, "get_suite", lambda name, **options: SplitToySuite())
    uri = f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}"
    (tmp_path / "mlruns").mkdir()
    run_id = fabricate_run(tmp_path / "runs" / "e2e", uri)

    out = invoke("compare", "runs/e2e", "--split", "heldout", "--epochs", "2", "--resamples", "500")
    assert "SIMULATED" in out and "e2e:selected − e2e:R0" in out and "Transfer" in out
    [compare_file] = (tmp_path / "runs/e2e/compare").glob("compare-heldout-*.json")  # keyed by the evaluation
    data = json.loads(compare_file.read_text())
    block = data["splits"]["heldout"]
    assert data["simulated"] and (block["n_blocked"], block["n_feasible"], block["n_sources"]) == (10, 5, 5)
    assert block["harnesses"]["e2e:R0"]["metrics"]["strict_sa"]["n"] == 20      # 10 blocked x 2 seeds
    assert data["transfer"][0]["search_source"] == "recorded by search e2e"
    diff = block["differences"][0]["metrics"]["joint"]
    assert diff["n"] == 30 and diff["n_sources"] == 5 and diff["ci"][0] <= diff["diff"] <= diff["ci"][1]

    invoke("probe", "belief", "runs/e2e", "--resamples", "500")
    belief = json.loads((tmp_path / "runs/e2e/probes/belief/belief-heldout.json").read_text())
    assert list(belief["harnesses"]) == ["e2e:R0", "e2e:selected"]
    assert all(h["n_C"] <= h["n_A"] <= h["n_reports"] == 15 for h in belief["harnesses"].values())

    out = invoke("probe", "challenge", "runs/e2e", "--replicates", "3")
    challenge = json.loads((tmp_path / "runs/e2e/probes/challenge/challenge-heldout.json").read_text())
    h = challenge["harnesses"]["e2e:selected"]
    assert h["contrast_name"] == "CRA" and len(h["replicates"]) == 3 and h["summary"]["p_pos_given_pos"]["n"] >= 1
    assert "P(+|−)" in out

    out = invoke("report", "runs/e2e")
    report_dir = tmp_path / "runs/e2e/report"
    expected = ["search_curve", "sa_vs_solve", "family_bars-search-run", "family_bars-heldout", "reliability-heldout",
                "challenge-heldout"]
    for name in expected:
        png_ok(report_dir / "figures" / f"{name}.png")
    page = (report_dir / "report.html").read_text()
    assert all(f'src="figures/{name}.png"' in page for name in expected)
    markdown = (report_dir / "report.md").read_text()
    assert "model: sim/baseline" in markdown and "SIMULATED" in markdown and "Not measured yet" not in markdown
    assert f"logged to MLflow run {run_id}" in out

    from mlflow import MlflowClient

    logged = {a.path for a in MlflowClient(tracking_uri=uri).list_artifacts(run_id, "report/figures")}
    assert {f"report/figures/{name}.png" for name in expected} <= logged
