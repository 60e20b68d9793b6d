"""The certified claim at the end of a search: selected vs R0 on the held-out split, paired, with a CI
and a one-sided test at alpha; never certified in a null search, certified for a known good edit,
"not run" when asked, and the same after a kill during the claim and a resume."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from typer.testing import CliRunner

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.cli.main import app
from harnessx.envs.toy import ToySuite
from harnessx.evaluation import evaluate
from harnessx.harness import Harness
from harnessx.models.client import ModelClient
from harnessx.search import Search, SearchConfig, get_objective
from harnessx.search.certify import CertifyConfig, claim_line
from harnessx.search.proposers import Proposal, Proposer
from harnessx.sim import load_profile, register_profile
from harnessx.stats import paired_test, sign_flip_ci
from tests.test_search_loop import Fresh, Killer
from tests.test_search_rules_truth import HELPFUL, prerequisites_world


def helpful_world(tmp_path) -> tuple[str, str]:
    """tests/test_search_rules_truth.py's world: one clause truly helps (a simulator cue)."""
    _, model, path = prerequisites_world(tmp_path, "prerequisites-help-claim")
    return model, str(path)


def config(tmp_path, **changes) -> SearchConfig:
    base = {"objective": "joint", "env": "toy", "rounds": 2, "proposals": 3, "runs_dir": str(tmp_path / "runs"),
            "tracking_uri": None, "concurrency": 4}
    return SearchConfig.of(**{**base, **changes})


def search(cfg: SearchConfig, sources: int = 12, resume: bool = False, **kwargs):
    return asyncio.run(Search(cfg, suite=ToySuite(n_sources=sources, heldout_sources=sources), **kwargs)
                       .run(resume=resume))


class Copies(Proposer):
    """A proposer of copies: the incumbent plus a neutral revision note (no cue of the simulator)."""

    name = "copies"

    def __init__(self):
        self.dropped: list[str] = []

    def propose(self, ctx, k):
        text = ctx.incumbent.text("system_prompt").rstrip()
        return [Proposal(ctx.incumbent.with_component("system_prompt", f"{text}\n(Revision note {ctx.round}.{i}.)\n"),
                         f"copy {ctx.round}.{i}", "a neutral copy") for i in range(k)]


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("good")
    model, space = helpful_world(tmp)
    cfg = config(tmp, model=model, space=space, epochs=3)
    return cfg, search(cfg)


@pytest.mark.slow
def test_a_known_good_edit_is_certified_with_its_n_and_ci(good):
    cfg, result = good
    claim = json.loads((result.run_dir / "claim.json").read_text())
    assert HELPFUL in result.selected.harness.text("system_prompt")
    assert claim["status"] == "certified" and claim["certified"] and claim["split"] == "heldout"
    assert (claim["n_tasks"], claim["seeds"], claim["n_pairs"], claim["valid_n"]) == (36, cfg.seeds, 108, 108)
    assert claim["excluded_pairs"] == 0 and claim["exclusions"] == []
    # hand check: the held-out rollouts again (all cached now), paired by task and seed
    suite = ToySuite(n_sources=12, heldout_sources=12)
    runner = Runner(suite, ModelClient(cfg.run.model), RolloutCache(result.run_dir / "rollouts"))
    tasks = get_objective("joint").tasks(suite.tasks("heldout"))
    r0, sel = (asyncio.run(evaluate(runner, h, tasks, cfg.seeds)) for h in (result.r0.harness, result.selected.harness))
    assert all(r.cached for r in r0.results + sel.results)  # the claim paid them; nothing is paid twice
    base = {(s.task_id, s.seed): float(s.success) for s in r0.scores}
    pairs = [(float(s.success), base[(s.task_id, s.seed)], s.source_id) for s in sel.scores]
    diff = sum(p[0] - p[1] for p in pairs) / 108
    assert claim["difference"] == pytest.approx(diff)
    assert claim["r0_score"] == pytest.approx(sum(p[1] for p in pairs) / 108)
    assert claim["selected_score"] == pytest.approx(sum(p[0] for p in pairs) / 108)
    per_task = {t.id: [p for p, s in zip(pairs, sel.scores) if s.task_id == t.id] for t in tasks}
    selected_means = [sum(p[0] for p in v) / 3 for v in per_task.values()]
    r0_means = [sum(p[1] for p in v) / 3 for v in per_task.values()]
    test = sign_flip_ci([x - y for x, y in zip(selected_means, r0_means)], 0.90, (-1.0, 1.0), seed=0)
    assert claim["ci"] == pytest.approx([test.low, test.high])  # inverts the test: low > 0 iff p <= 0.05
    assert claim["p_value"] == pytest.approx(test.p_value) and test.p_value <= 0.05 and test.low > 0
    scipy = paired_test(selected_means, r0_means, n_resamples=10_000, seed=0)  # the rules' test, other draws
    assert claim["p_value"] == pytest.approx(scipy.p_value, abs=0.005)
    assert result.summary["claim"]["status"] == "certified"
    assert result.summary["claim_line"].startswith("claim: CERTIFIED on the heldout split")
    assert Harness.load(result.run_dir / "selected.yaml").provenance["claim"]["certified"] is True


@pytest.mark.slow
def test_a_null_search_is_never_certified(tmp_path):
    """Greedy accepts copies (each draws its own rollouts), so the selection differs from R0 and the
    claim is really tested; across seeded replicates it is never certified."""
    profile = load_profile("baseline")
    model = register_profile(profile.model_copy(update={"name": "baseline-text-claim", "pairing": "text"}))
    tested = 0
    for seed in range(3):
        result = search(config(tmp_path, model=model, accept="greedy", seed=seed, name=f"null-{seed}", rounds=3),
                        proposer=Copies())
        claim = result.summary["claim"]
        assert not claim["certified"] and claim["status"] == "not certified", claim_line(claim)
        if claim["selected_hash"] != claim["r0_hash"]:
            tested += 1
            assert claim["p_value"] > 0.05 and claim["ci"][0] <= 0 and claim["rollouts"] == 2 * 36
    assert tested >= 2  # the claim was tested, not skipped as "selection is R0"


def test_selection_equal_to_r0_spends_no_rollout(tmp_path):
    model = register_profile(load_profile("baseline").model_copy(update={"name": "baseline-claim-r0"}))
    result = search(config(tmp_path, model=model, rounds=1), proposer=Copies())  # CRN copies: never accepted
    claim = result.summary["claim"]
    assert result.selected.harness.hash == result.r0.harness.hash
    assert claim["status"] == "not certified" and claim["rollouts"] == 0 and "selection is R0" in claim["reason"]
    assert len(list((result.run_dir / "rollouts").glob("*/*.json"))) == result.summary["rollouts"]


@pytest.mark.slow
def test_kill_during_the_claim_then_resume_gives_the_same_claim(good, tmp_path):
    cfg, whole = good
    fresh_cfg = cfg.replaced(runs_dir=str(tmp_path / "runs"))
    search_rollouts = whole.summary["rollouts"]
    with pytest.raises(KeyboardInterrupt):
        search(fresh_cfg, reporter=Killer(search_rollouts + 10))  # 10 rollouts into the claim
    run_dir = tmp_path / "runs" / "joint-toy"
    assert not (run_dir / "claim.json").exists() and not (run_dir / "summary.json").exists()
    counter = Fresh()
    resumed = search(fresh_cfg, resume=True, reporter=counter)
    keep = lambda c: {k: v for k, v in c.items() if k != "paid"}
    assert keep(resumed.summary["claim"]) == keep(whole.summary["claim"])
    assert json.loads((run_dir / "claim.json").read_text())["status"] == "certified"
    assert len(counter.keys) <= 2 * 108 - 10 + 4 and len(counter.keys) < whole.summary["claim"]["paid"]  # reused


@pytest.mark.slow
def test_certify_split_none_records_not_run(tmp_path):
    result = search(config(tmp_path, rounds=1), certify=CertifyConfig.from_options("none", None))
    claim = json.loads((result.run_dir / "claim.json").read_text())
    assert claim["status"] == "not run" and not claim["certified"] and claim["rollouts"] == 0
    assert claim_line(claim) == "claim: not run (--certify-split none)"


def test_cli_prints_the_claim_and_refuses_a_split_without_tasks(tmp_path):
    cli = CliRunner()
    args = ["search", "--env", "toy", "--rounds", "1", "--proposals", "2", "--no-mlflow", "--runs-dir",
            str(tmp_path / "runs")]
    out = cli.invoke(app, [*args, "--name", "a", "--certify-split", "none"])
    assert out.exit_code == 0, out.output
    assert "claim: not run (--certify-split none)" in out.output
    assert json.loads((tmp_path / "runs" / "a" / "summary.json").read_text())["claim"]["status"] == "not run"
    bad = cli.invoke(app, [*args, "--name", "b", "--certify-split", "independent"])
    assert bad.exit_code == 2 and "--certify-split" in bad.output and "independent" in bad.output
    assert not (tmp_path / "runs" / "b").exists()
    search_split = cli.invoke(app, [*args, "--name", "c", "--certify-split", "search"])
    assert search_split.exit_code == 2 and "selection used" in search_split.output



@pytest.mark.slow
def test_summary_export_report_and_viewer_print_the_claim(good, tmp_path):
    from harnessx.report.run_report import build_report
    from harnessx.viewer.app import create_app

    _, result = good
    line = result.summary["claim_line"]
    assert line.startswith("claim: CERTIFIED") and "[90% CI" in line and "n=108 valid pairs of 108" in line
    out = CliRunner().invoke(app, ["export", str(result.run_dir), "--out", str(tmp_path / "h.yaml")])
    assert out.exit_code == 0 and "claim: CERTIFIED on the heldout split" in " ".join(out.output.split())
    assert Harness.load(tmp_path / "h.yaml").provenance["claim"]["p_value"] == result.summary["claim"]["p_value"]
    md, page, _ = build_report(result.run_dir, tmp_path / "report")
    text = md.read_text(encoding="utf-8")
    assert "## Certified claim" in text and line in text and "| verdict | certified |" in text
    assert "search split" in page.read_text(encoding="utf-8")
    client = create_app(result.run_dir.parent).test_client()
    html = client.get(f"/runs/{result.run_dir.name}").get_data(as_text=True)
    assert 'id="claim"' in html and ">certified</b>" in html and "selection data, not a claim" in html
    assert not re.search(r"\bgains?\b", html.lower())  # the word, not "against"


@pytest.mark.slow
def test_mlflow_and_optuna_carry_the_claim(good, tmp_path):
    import optuna
    from mlflow import MlflowClient
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    cfg, whole = good
    uri = f"sqlite:///{tmp_path}/mlruns/mlflow.db"
    # the same search again on the same rollouts (shared cache): its claim is logged to MLflow this time
    tracked = cfg.replaced(tracking_uri=uri, name="tracked")
    result = search(tracked)
    client = MlflowClient(tracking_uri=uri)
    runs = client.search_runs([client.get_experiment_by_name("harnessx-search").experiment_id])
    parent = next(r for r in runs if "mlflow.parentRunId" not in r.data.tags)
    claim = result.summary["claim"]
    assert parent.data.metrics["claim_certified"] == 1.0 and parent.data.tags["harnessx.claim"] == "certified"
    assert parent.data.metrics["claim_p_value"] == pytest.approx(claim["p_value"])
    assert parent.data.metrics["claim_ci_low"] == pytest.approx(claim["ci"][0])
    assert parent.data.metrics["claim_valid_n"] == 108 and parent.data.tags["harnessx.claim_split"] == "heldout"
    assert claim == {**whole.summary["claim"], "paid": 0}  # every rollout came from the shared cache
    study = optuna.load_study(study_name="tracked", storage=JournalStorage(JournalFileBackend(
        str(result.run_dir / "optuna.log"))))
    assert study.user_attrs["claim"]["certified"] is True and study.user_attrs["claim"]["valid_n"] == 108


@pytest.mark.slow
def test_compare_on_the_claims_split_reads_the_claims_rollouts(tmp_path, monkeypatch):
    """`harnessx compare` on held-out after a search pays nothing: the claim's rollouts share its keys."""
    monkeypatch.chdir(tmp_path)
    cli = CliRunner()
    out = cli.invoke(app, ["search", "--env", "starter", "--rounds", "2", "--accept", "greedy", "--no-mlflow",
                           "--name", "demo"])
    assert out.exit_code == 0, out.output
    claim = json.loads((tmp_path / "runs" / "demo" / "claim.json").read_text())
    assert claim["selected_hash"] != claim["r0_hash"] and claim["paid"] == claim["rollouts"] == 40
    compared = cli.invoke(app, ["compare", "runs/demo", "--split", "heldout", "--out", "cmp"])
    assert compared.exit_code == 0, compared.output
    assert "(0 model calls, 40 cached rollouts)" in " ".join(compared.output.split())
    data = json.loads(next((tmp_path / "cmp").glob("compare-heldout-*.json")).read_text())
    joint = data["splits"]["heldout"]["differences"][0]["metrics"]["joint"]
    assert joint["diff"] == pytest.approx(claim["difference"]) and joint["n"] == claim["valid_n"]
