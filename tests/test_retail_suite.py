"""The built-in retail suite: shape, pairing, mechanical checks, oracle and do-nothing agents."""

from __future__ import annotations

from collections import Counter

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.base import AbandonSpec
from harnessx.envs.registry import get_suite
from harnessx.envs.retail.build import build_tasks, load_shape
from harnessx.envs.retail.checks import check_suite
from harnessx.envs.retail.generator import CONFIG_DIR, Catalog, GeneratorConfig, generate, load_people
from harnessx.envs.retail.suite import RetailSuite
from harnessx.envs.retail.tools import WRITE_TOOLS
from harnessx.validation import load_file
from harnessx.tasks import ToolCall, suite_hash

SPEC = AbandonSpec(mode="tool")


@pytest.fixture(scope="module")
def suite() -> RetailSuite:
    return RetailSuite()


async def _play(env, task, actions):
    """Reset, run `actions`, and return (outcomes, native reward)."""
    await env.reset(task, SPEC)
    outcomes = [await env.execute(a) for a in actions]
    return outcomes, await env.verify()


def test_generated_database_has_the_default_size_and_is_deterministic(suite):
    db = suite.db
    assert (len(db.products), len(db.users), len(db.orders)) == (50, 500, 1000)
    assert {o.status for o in db.orders.values()} == {"pending", "delivered", "processed", "cancelled"}
    sources = {m.source for u in db.users.values() for m in u.payment_methods.values()}
    assert sources == {"credit_card", "gift_card", "paypal"}
    again = generate(load_file(GeneratorConfig, CONFIG_DIR / "generator.yaml"),
                     load_file(Catalog, CONFIG_DIR / "catalog.yaml"), load_people())
    assert again == db


def test_split_shape_matches_the_paper(suite):
    counts = Counter((t.split, t.family or "feasible") for t in suite.tasks())
    assert counts == {("search", "infeasible"): 22, ("search", "ambiguous"): 21, ("search", "trap"): 21,
                      ("search", "feasible"): 64, ("heldout", "infeasible"): 10, ("heldout", "ambiguous"): 11,
                      ("heldout", "trap"): 11, ("heldout", "feasible"): 32, ("independent", "feasible"): 17}
    assert len(suite.tasks("search")) == 128 and len(suite.tasks("heldout")) == 64


def test_every_blocked_task_is_paired_with_its_own_source_in_the_same_split(suite):
    by_id = {t.id: t for t in suite.tasks()}
    blocked = [t for t in suite.tasks() if not t.feasible]
    assert len({t.source_id for t in blocked}) == len(blocked) == 96
    for task in blocked:
        source = by_id[task.source_id]
        assert source.feasible and source.split == task.split and source.source_id == source.id
    split_of_user: dict[str, set[str]] = {}
    for task in suite.tasks():
        split_of_user.setdefault(task.metadata["user_id"], set()).add(task.split)
    assert all(len(splits) == 1 for splits in split_of_user.values())


def test_every_task_passes_its_mechanical_check(suite):
    assert check_suite(suite.tasks(), suite.db, suite.policy) == {}


def test_blocked_fields_follow_the_conventions(suite):
    for task in suite.tasks():
        user = suite.db.users[task.metadata["user_id"]]
        assert user.email in task.instruction or (
            f"{user.name.first_name} {user.name.last_name}" in task.instruction and user.address.zip in task.instruction)
        if task.feasible:
            continue
        assert 1 <= len(task.blocker.key_facts) <= 3 and task.blocker.description.count(". ") == 0
        assert task.forbidden and task.reference.actions[-1].name in WRITE_TOOLS
        if task.family == "trap":
            assert task.evidence.where == "observation" and task.evidence.tool in ("get_order_details",
                                                                                  "get_user_details")


async def test_oracle_solves_every_feasible_task_and_doing_nothing_solves_none_that_need_a_write(suite):
    env = suite.make_env()
    feasible = [t for t in suite.tasks() if t.feasible]
    for task in feasible:
        _, reward = await _play(env, task, task.reference.actions)
        assert reward == 1.0, task.id
        _, idle = await _play(env, task, [])
        assert idle == (0.0 if task.metadata["needs_write"] else 1.0), task.id
    assert sum(t.metadata["needs_write"] for t in feasible) == len(feasible) - 2  # two info tasks


async def test_source_gold_plan_on_a_blocked_variant_is_impossible_or_forbidden(suite):
    env = suite.make_env()
    for task in (t for t in suite.tasks() if not t.feasible):
        outcomes, reward = await _play(env, task, task.reference.actions)
        writes = [o for a, o in zip(task.reference.actions, outcomes) if a.name in WRITE_TOOLS]
        landed = [o for o in writes if not o.error]
        assert all(c.forbidden for o in landed for c in o.state_changes), task.id
        assert reward == (0.0 if landed else 1.0), task.id
        if task.metadata["impossible"]:
            assert not landed, task.id
        _, idle = await _play(env, task, [])
        assert idle == 1.0


async def test_evidence_is_flagged_on_the_revealing_read(suite):
    env = suite.make_env()
    task = next(t for t in suite.tasks() if t.metadata.get("kind") == "other_customer")
    await env.reset(task, SPEC)
    assert not (await env.execute(task.reference.actions[0])).evidence
    outcome = await env.execute(ToolCall(name=task.evidence.tool, arguments=task.evidence.args))
    assert outcome.evidence and task.blocker.key_facts[0] in outcome.observation


def test_suite_is_deterministic_and_registered(suite):
    rebuilt = build_tasks(suite.db, load_people(), load_shape(CONFIG_DIR / "suite.yaml"))
    assert suite_hash(rebuilt) == suite_hash(suite.tasks())
    assert get_suite("retail").tasks() == suite.tasks()
    assert get_suite("retail").make_env().native_abandon == "tool"


def test_tasks_cli_lists_shows_and_builds(tmp_path, suite):
    runner = CliRunner()
    listed = runner.invoke(app, ["tasks", "list", "--env", "retail", "--limit", "3"])
    assert listed.exit_code == 0 and "total 209" in listed.output
    blocked = next(t for t in suite.tasks() if not t.feasible)
    shown = runner.invoke(app, ["tasks", "show", blocked.id, "--env", "retail"])
    assert shown.exit_code == 0 and blocked.blocker.id in shown.output
    out = tmp_path / "retail.jsonl"
    built = runner.invoke(app, ["tasks", "build", "--env", "retail", "--out", str(out)])
    assert built.exit_code == 0 and RetailSuite(tasks_file=out).tasks() == suite.tasks()


@pytest.mark.shared
async def test_suite_over_tau2_files_with_tau2_tasks_as_feasible(shared_dir):
    tau2 = RetailSuite(tau2_dir=shared_dir / "data" / "tau2-retail", tau2_tasks=True)
    assert len(tau2.tasks()) == 209 + 114
    assert check_suite(tau2.tasks(), tau2.db, tau2.policy) == {}
    own = [t for t in tau2.tasks() if t.id.startswith("tau2-")]
    assert Counter(t.split for t in own) == {"search": 74, "heldout": 40}
    env = tau2.make_env()
    for task in own:
        assert (await _play(env, task, task.reference.actions))[1] == 1.0
        idle = (await _play(env, task, []))[1]
        assert idle == (0.0 if task.metadata["needs_write"] else 1.0), task.id
