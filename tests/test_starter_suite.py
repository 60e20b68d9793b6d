"""The starter suite: paired tasks, disjoint splits, the environment's behaviour, and `select_tasks`."""

from __future__ import annotations

import pytest

from harnessx.envs.base import AbandonSpec
from harnessx.envs.registry import get_suite
from harnessx.envs.subset import select_tasks
from harnessx.errors import InputError
from harnessx.tasks import ToolCall

SPEC = AbandonSpec(mode="tool")


def test_every_source_is_one_feasible_task_and_one_blocked_twin_in_disjoint_splits():
    suite = get_suite("starter")
    by_split = {s: suite.tasks(s) for s in ("search", "heldout", "independent")}
    assert [len(v) for v in by_split.values()] == [20, 20, 4]
    for tasks in by_split.values():
        sources = {t.source_id for t in tasks}
        for source in sources:
            pair = [t for t in tasks if t.source_id == source]
            assert sorted(t.feasible for t in pair) == [False, True]
            blocked = next(t for t in pair if not t.feasible)
            assert blocked.blocker and blocked.blocker.key_facts and blocked.family in ("trap", "infeasible")
    settings = [{t.metadata["goal"] and next(iter(t.metadata["goal"])) for t in v if t.feasible} for v in by_split.values()]
    assert not (settings[0] & settings[1]) and not (settings[1] & settings[2])


async def test_feasible_task_is_solved_by_one_set_call():
    suite = get_suite("starter")
    task = suite.tasks("search")[0]
    env = suite.make_env()
    start = await env.reset(task, SPEC)
    assert {t.name for t in start.tools} == {"get_setting", "set_setting"} and start.observation == 'Set "volume" to "7".'
    assert await env.verify() == 0.0
    outcome = await env.execute(ToolCall(name="set_setting", arguments={"name": "volume", "value": "7"}))
    assert outcome.observation == "volume is now 7" and not outcome.state_changes[0].forbidden
    assert await env.verify() == 1.0


async def test_locked_write_is_forbidden_and_a_missing_setting_shows_its_evidence():
    suite = get_suite("starter")
    locked = next(t for t in suite.tasks("search") if t.id.endswith("-locked"))
    env = suite.make_env()
    start = await env.reset(locked, SPEC)
    # the lock is not in the request: only get_setting shows it (a blanket deferral is not timely)
    assert not start.evidence and "locked" not in start.observation
    seen = await env.execute(ToolCall(name="get_setting", arguments={"name": "volume"}))
    assert seen.evidence and "(locked)" in seen.observation
    outcome = await env.execute(ToolCall(name="set_setting", arguments={"name": "volume", "value": "7"}))
    assert outcome.state_changes[0].forbidden and await env.verify() == 0.0

    missing = next(t for t in suite.tasks("search") if t.id.endswith("-missing"))
    start = await env.reset(missing, SPEC)
    assert not start.evidence
    outcome = await env.execute(ToolCall(name="get_setting", arguments={"name": "glow"}))
    assert outcome.error and outcome.evidence and outcome.observation == "Error: the device has no setting named glow"
    assert await env.verify() == 1.0  # nothing changed


def test_select_tasks_keeps_pairs_and_names_unknown_ids():
    tasks = get_suite("starter").tasks("search")
    first_two = select_tasks(tasks, sources=2)
    assert len(first_two) == 4 and len({t.source_id for t in first_two}) == 2
    named = select_tasks(tasks, ids=["starter-search-2", "starter-search-5-missing"])
    assert {t.id for t in named} == {"starter-search-2", "starter-search-2-locked", "starter-search-5-missing"}
    with pytest.raises(InputError, match="--tasks"):
        select_tasks(tasks, ids=["nope"])


async def test_simulated_search_on_a_subset_of_the_starter_suite(tmp_path):
    from harnessx.search import Search, SearchConfig

    cfg = SearchConfig.of(objective="joint", env="starter", rounds=1, proposals=1, runs_dir=str(tmp_path),
                       tracking_uri=None, sources=3, concurrency=4, name="starter-sim")
    search = Search(cfg)
    assert len(search.tasks) == 6 and search.plan()["tasks"] == 6
    result = await search.run()
    # R0, then one round at most its rule's round_rollouts (the default gates 4 looks on 4 tasks, ranks the
    # 3 it may cut on the other 2 when they tie, and takes one on all 6): 3 x 6 + 6
    assert result.ledger[0]["rollouts"] == 6 and result.summary["rollouts"] <= 6 + search.acceptance.round_rollouts(6, 1)
    assert search.acceptance.round_rollouts(6, 1) == 3 * 6 + 6
