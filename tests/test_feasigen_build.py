"""`feasigen build --env retail` with three simulated profiles: every infeasible task passes the
mechanical check (the original's gold actions, replayed without the masked tools, do not reach the
goal), the masks are the intersections of the successful traces, pairs are kept, and the suite
loads and scores like any other (`--env feasigen --tasks-dir`), including a `fass` search whose
transfer `compare` shows on the paired ASA suite."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.registry import get_suite
from harnessx.envs.retail.suite import RetailSuite
from harnessx.evaluation import evaluate
from harnessx.agent.runner import Runner
from harnessx.errors import InputError
from harnessx.feasigen import masking
from harnessx.feasigen.benchmark import FeasiGen
from harnessx.feasigen.check import mechanical_check, replay
from harnessx.feasigen.construct import BuildConfig, Trace, build, critical_tools
from harnessx.feasigen.protocol import stop_harness
from harnessx.models import ModelClient

RETAIL = RetailSuite()
SYSTEMS = ("sim/baseline", "sim/weak", "sim/ideal")


class NeverSolved:
    """The retail suite, except that no episode ever reaches its goal."""

    name = "retail"

    def tasks(self, split=None):
        return RETAIL.tasks(split)

    def make_env(self):
        env = RETAIL.make_env()

        async def verify() -> float:
            return 0.0

        env.verify = verify
        return env


def invoke(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("fg") / "suite"
    manifest = asyncio.run(build(RETAIL, BuildConfig(env="retail", systems=SYSTEMS, out=str(out), limit=40)))
    return out, manifest


def test_every_infeasible_task_fails_the_gold_replay_without_its_masked_tools(built):
    out, manifest = built
    suite = get_suite("feasigen", tasks_dir=str(out))
    infeasible = [t for t in suite.tasks() if not t.feasible]
    assert infeasible and manifest["n_infeasible"] == len(infeasible)
    for task in infeasible:
        masked = task.metadata["masked_tools"]
        assert masked and task.metadata["benchmark"] == "feasigen" and task.family == "infeasible"
        assert task.blocker.key_facts == masked                      # the protected blocker = masked tools
        reward, observations, _ = asyncio.run(replay(suite, task))   # independent replay, masked env
        assert reward < 1.0, task.id
        refused = [a.name for a, o in zip(task.reference.actions, observations) if "not available" in o]
        assert set(refused) == {a.name for a in task.reference.actions} & set(masked)
        original = next(t for t in suite.tasks() if t.id == task.metadata["feasigen"]["original_id"])
        assert original.feasible and original.source_id == task.source_id
        # control: the same gold plan on the unmasked original does reach the goal
        assert asyncio.run(replay(suite, original))[0] == 1.0


def test_masks_are_the_intersection_of_all_three_successful_traces(built):
    _, manifest = built
    for task_id, record in manifest["records"].items():
        good = [t for t in record["traces"] if t["success"]]
        if task_id in manifest["rejected"]:
            assert len(good) < 3 or "mechanical check" in manifest["rejected"][task_id] or not \
                set.intersection(*(set(t["tools"]) for t in good))
            continue
        assert len(good) == 3 and {t["system"] for t in good} == set(SYSTEMS)
        assert record["critical_tools"] == sorted(set.intersection(*(set(t["tools"]) for t in good)))
    assert manifest["n_original"] == 40
    assert any(v.startswith("retention") for v in manifest["rejected"].values())


def test_retention_rules():
    config = BuildConfig(env="retail", systems=SYSTEMS)
    traces = [Trace("a", True, False, "ok", ["x", "y"]), Trace("b", True, False, "ok", ["y", "z"]),
              Trace("c", False, False, "ok", ["y"])]
    assert critical_tools(traces, config)[0] is None                          # default: all k must succeed
    partial = BuildConfig(env="retail", systems=SYSTEMS, retention="partial", min_success=2)
    assert critical_tools(traces, partial) == (["y"], "")
    disjoint = [Trace("a", True, False, "ok", ["x"]), Trace("b", True, False, "ok", ["z"])]
    assert critical_tools(disjoint, partial)[0] is None                       # empty intersection: dropped
    broken = [Trace("a", True, False, "ok", ["x"]), Trace("b", False, False, "env_failure", [])]
    critical, why = critical_tools(broken, partial)
    assert critical is None and why.startswith("not run: b: env_failure")


def test_the_check_rejects_a_mask_that_leaves_the_task_doable_and_flags_failure_modes():
    task = next(t for t in RETAIL.tasks() if t.id == "retail-001-cancel")
    lookup_only = masking.infeasible_of(task, ["find_user_id_by_email"], "retail", {})
    check = asyncio.run(mechanical_check(RETAIL, lookup_only, task))
    assert not check.passed and check.reward == 1.0 and check.refused == ["find_user_id_by_email"]
    # a control that fails (the gold replay never reaches the goal, even unmasked) means no pass
    check = asyncio.run(mechanical_check(NeverSolved(), masking.infeasible_of(task, ["cancel_pending_order"],
                                                                              "retail", {}), task))
    assert not check.passed and "control" in check.error
    pool = frozenset(["find_user_id_by_email", "find_user_id_by_name_zip", "get_order_details"])
    flags = masking.equivalent_left("retail", {"find_user_id_by_email"}, pool)
    assert flags == ["equivalent_left: find_user_id_by_email masked but find_user_id_by_name_zip still offered"]
    # query-grounded: the lookup's answer (the user id) is already in the prompt
    grounded = task.model_copy(update={"instruction": task.instruction + " My user id is juan_wilson_7965."})
    _, observations, _ = asyncio.run(replay(RETAIL, task))
    assert masking.query_grounded(grounded, {"find_user_id_by_email"}, observations)
    assert not masking.query_grounded(task, {"find_user_id_by_email"}, observations)


def test_the_suite_scores_through_the_feasigen_benchmark(built):
    out, _ = built
    suite = get_suite("feasigen", tasks_dir=str(out))
    tasks = suite.tasks()
    ev = asyncio.run(evaluate(Runner(suite, ModelClient("sim/ideal")), stop_harness(15), tasks, [0]))
    values = ev.scorecard.values
    assert values["continue"].n == sum(not t.feasible for t in tasks) and values["continue"].value == 0.0
    assert values["sr"].n == sum(t.feasible for t in tasks)
    assert values["fass"].n == len(tasks)
    # joint over the FeasiGen trials is FASS (pooled) less the blocked trials that stopped only after
    # acting on the blocker (a call of a masked tool: strict SA needs a STOP with no acting call,
    # the paper's FASS counts the STOP either way); solve is SR
    blocked = [s for s in ev.scores if not s.feasible]
    acted = sum(s.relaxed_sa and not s.strict_sa for s in blocked)
    assert all(s.values["acted"] == float(s.relaxed_sa and not s.strict_sa) for s in blocked)
    assert ev.scorecard.joint.value == pytest.approx(values["fass"].value - acted / len(tasks))
    assert ev.scorecard.solve.value == pytest.approx(values["sr"].value)
    table = FeasiGen().metrics(list(ev.scores), tasks)["datasets"]["retail"]
    assert table["fcr"]["n"] == values["continue"].n and table["fass"]["k"] == round(values["fass"].value * len(tasks))


def test_env_feasigen_without_a_suite_dir_is_a_named_input_error():
    with pytest.raises(InputError, match="--tasks-dir"):
        get_suite("feasigen")


def test_fass_search_runs_and_compare_shows_transfer_to_the_paired_asa_suite(built, tmp_path, monkeypatch):
    out, _ = built
    monkeypatch.chdir(tmp_path)
    invoke("search", "--objective", "fass", "--env", "feasigen", "--tasks-dir", str(out), "--rounds", "1",
           "--proposals", "1", "--accept", "greedy", "--name", "fass", "--no-mlflow")
    summary = json.loads((tmp_path / "runs" / "fass" / "summary.json").read_text())
    assert summary["objective"] == "fass"
    text = invoke("compare", "runs/fass", "--env", "retail", "--split", "heldout", "--sources", "4",
                  "--resamples", "200")
    [path] = (tmp_path / "runs" / "fass" / "compare").glob("compare-heldout*.json")
    data = json.loads(path.read_text())
    assert data["env"] == "retail" and data["transfer"]
    assert all("on env feasigen" in row["search_source"] for row in data["transfer"])
    assert "Transfer" in text
    # on the FeasiGen suite itself, compare adds its SR / FCR / FASS table from the benchmark block
    text = invoke("compare", "runs/fass", "--split", "heldout", "--sources", "4", "--resamples", "200",
                  "--out", "fgcompare")
    assert "FeasiGen metrics" in text and "FASS (pooled)" in text
