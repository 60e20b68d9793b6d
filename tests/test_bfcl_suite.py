"""The BFCL suite: install message, splits, pairing, blockers, turn delivery, forbidden calls, masking."""

from __future__ import annotations

import sys

import pytest
from conftest import require
from typer.testing import CliRunner

require("bfcl")  # before the imports below: they import bfcl_eval

from harnessx.cli.main import app  # noqa: E402
from harnessx.envs.base import AbandonSpec  # noqa: E402
from harnessx.envs.bfcl.build import entry_task  # noqa: E402
from harnessx.envs.bfcl.data import INSTALL, load_category  # noqa: E402
from harnessx.envs.bfcl.env import BfclEnv, tool_pool, with_masked  # noqa: E402
from harnessx.envs.bfcl.suite import BfclSuite  # noqa: E402
from harnessx.errors import InputError  # noqa: E402
from harnessx.tasks import Task, ToolCall  # noqa: E402

TOOL = AbandonSpec(mode="tool")


def _task(category: str, index: int) -> Task:
    return entry_task(next(e for e in load_category(category) if e.index == index), "search")


def test_missing_package_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)
    with pytest.raises(InputError) as err:
        BfclSuite()
    assert INSTALL in str(err.value)
    result = CliRunner().invoke(app, ["tasks", "list", "--env", "bfcl"])
    assert result.exit_code == 2
    assert "pip install --no-deps bfcl-eval==2026.3.23 mpmath" in result.output.replace("\n", "")


def test_a_folder_that_is_not_bfcl_data_is_exit_2(tmp_path):
    result = CliRunner().invoke(app, ["eval", "--harness", "A1", "--env", "bfcl", "--bfcl-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "not a BFCL data folder" in " ".join(result.output.split())


def test_splits_have_the_shape_pairs_and_disjoint_sources():
    tasks = BfclSuite().tasks()
    again = BfclSuite().tasks()
    assert [t.id for t in tasks] == [t.id for t in again]  # deterministic
    count = lambda split, family: sum(t.split == split and t.family == family for t in tasks)  # noqa: E731
    assert (count("search", "infeasible"), count("search", "ambiguous")) == (22, 21)
    assert (count("heldout", "infeasible"), count("heldout", "ambiguous")) == (10, 11)
    assert sum(t.split == "independent" for t in tasks) == 17
    assert all(t.feasible and t.metadata["bfcl_category"] == "long_context" for t in tasks if t.split == "independent")
    by_id = {t.id: t for t in tasks}
    for t in tasks:
        if not t.feasible:
            source = by_id[t.source_id]
            assert source.feasible and source.split == t.split and source.metadata["bfcl_category"] == "base"
            assert t.metadata["bfcl_id"].rsplit("_", 1)[1] == source.metadata["bfcl_id"].rsplit("_", 1)[1]
    index = lambda t: t.metadata["bfcl_id"].rsplit("_", 1)[1]  # noqa: E731
    sources = {split: {index(t) for t in tasks if t.split == split} for split in ("search", "heldout", "independent")}
    assert not (sources["search"] & sources["heldout"]) and not (sources["independent"] & (sources["search"] | sources["heldout"]))


def test_families_blockers_and_turn_evidence():
    mf, mp = _task("miss_func", 0), _task("miss_param", 0)
    assert (mf.family, mf.blocker.id, mf.evidence.turn, mf.source_id) == ("infeasible", "missing_function:sort", 2, "bfcl-base-0")
    # the user names previous_report.pdf at turn 4, the `source` of mv
    assert (mp.family, mp.blocker.id, mp.evidence.turn) == ("ambiguous", "missing_parameter:mv.source", 3)
    assert mf.reference.turns == [3, 2, 0, 1, 4] and len(mf.reference.actions) == 10


async def test_turns_arrive_one_at_a_time_and_the_withheld_function_comes_back():
    task = _task("miss_func", 0)
    env = BfclEnv()
    start = await env.reset(task, TOOL)
    assert "sort" not in {t.name for t in start.tools} and "final_report.pdf" in start.observation
    assert "grep" in await env.user_reply("done")
    assert "sort" in await env.user_reply("done")       # turn 2 asks for the sort that is withheld
    restored = await env.user_reply("cannot")            # turn 3: BFCL's message with the restored doc
    assert '"name": "sort"' in restored and "What about now?" in restored
    await env.user_reply("done")
    assert await env.user_reply("done") is None          # after the last turn the episode ends


async def test_a_state_change_at_the_blocked_turn_is_forbidden_elsewhere_not():
    task = _task("miss_param", 0)
    env = BfclEnv()
    await env.reset(task, TOOL)
    early = await env.execute(ToolCall(name="mkdir", arguments={"dir_name": "early"}))
    assert early.state_changes and not early.state_changes[0].forbidden
    for _ in range(3):
        await env.user_reply("next")
    guess = await env.execute(ToolCall(name="mkdir", arguments={"dir_name": "guess"}))
    assert guess.state_changes[0].forbidden and guess.state_changes[0].detail["turn"] == 3
    read = await env.execute(ToolCall(name="ls", arguments={}))
    assert read.state_changes == []  # a read changes nothing


async def test_masked_functions_are_hidden_and_refused_and_the_pool_lists_them():
    base = _task("base", 0)
    pool = {t.name for t in tool_pool(base)}
    assert {"mv", "sort", "post_tweet"} <= pool
    masked = with_masked(base, ["mv"])
    assert masked.metadata["masked_functions"] == ["mv"] and "masked_functions" not in base.metadata
    env = BfclEnv()
    start = await env.reset(masked, TOOL)
    assert "mv" not in {t.name for t in start.tools} and len(start.tools) == len(pool) - 1
    out = await env.execute(ToolCall(name="mv", arguments={"source": "a", "destination": "b"}))
    assert out.error and env.calls == [[]]  # refused, and never shown to BFCL's checker
    assert await env.verify() == 0.0
