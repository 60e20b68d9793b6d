"""The real-model path end to end: a tiny local/smollm2 search with constrained tool calls, and one
round of the `llm` proposer (DSPy) against the model served by `harnessx local serve`'s server."""

from __future__ import annotations

import json

import pytest
import yaml

from harnessx.harness import load_preset
from harnessx.trajectory import Trajectory

pytestmark = [pytest.mark.realmodel, pytest.mark.slow,
              pytest.mark.requires("local-server")]
OFFERED = {"get_setting", "set_setting", "defer_task"}


def space_file(tmp_path, tool_format: str) -> str:
    r0 = load_preset("A1").with_switches(tool_format=tool_format, max_steps=2, max_output_tokens=48)
    space = {"name": "starter-tiny", "description": "A1, short; one clause library.",
             "r0": {"components": r0.components, "switches": r0.switches.model_dump(mode="json")},
             "libraries": {"checks": {"component": "system_prompt", "addresses": ["proceeded", "error"], "clauses": [
                 {"id": "verify", "text": "Before acting, check that the setting exists and is not locked."}]}}}
    path = tmp_path / "space.yaml"
    path.write_text(yaml.safe_dump(space, sort_keys=False))
    return str(path)


def trajectories(run_dir) -> list[Trajectory]:
    return [Trajectory.load(p) for p in sorted((run_dir / "rollouts").glob("*/*.jsonl"))]


async def test_tiny_real_search_with_constrained_calls_calls_an_offered_tool(tmp_path):
    from harnessx.search import Search, SearchConfig

    cfg = SearchConfig.of(objective="joint", env="starter", model="local/smollm2", rounds=1, proposals=1,
                       space=space_file(tmp_path, "constrained"), runs_dir=str(tmp_path / "runs"), tracking_uri=None,
                       concurrency=2, sources=1, name="tiny")
    result = await Search(cfg).run()
    assert result.summary["simulated"] is False and result.ledger[0]["rollouts"] == 2
    trajs = trajectories(result.run_dir)
    assert trajs
    for traj in trajs:
        traj.verify()
        end = traj.of_kind("end")[0].data
        assert {"queue_s", "model_s", "tool_s", "agent_s"} <= set(end)
    calls = [e for t in trajs for e in t.of_kind("tool_call")]
    assert any(c.data["name"] in OFFERED for c in calls), [c.data for c in calls]
    assert all(c.data["name"] in OFFERED for c in calls)  # constrained decoding names only offered tools


async def test_one_llm_proposer_round_against_the_served_model_never_crashes(tmp_path):
    from harnessx.local.server import serve
    from harnessx.search import Search, SearchConfig

    with serve("smollm2") as server:
        cfg = SearchConfig.of(objective="joint", env="starter", model="sim/baseline", proposer="llm",
                           meta_model="openai/smollm2", meta_api_base=server.url, rounds=1, proposals=1,
                           space=space_file(tmp_path, "native"), runs_dir=str(tmp_path / "runs"), tracking_uri=None,
                           concurrency=4, sources=1, name="llm-round")
        search = Search(cfg)
        search.proposer.lm.kwargs["max_tokens"] = 160  # a short reply: the test is the plumbing, not the edit
        result = await search.run()
    rows = [json.loads(line) for line in (result.run_dir / "ledger.jsonl").read_text().splitlines()]
    dropped = search.proposer.dropped
    if len(rows) == 1:  # the draft was refused: the search stopped and says why
        assert dropped and result.summary["stop_reason"].startswith("the proposer has no new edit (slot 0: ")
    else:  # a valid edit: evaluated, and accepted or rejected with its reason
        assert rows[1]["round"] == 1 and rows[1]["reason"]
