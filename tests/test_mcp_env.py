"""The MCP environment against real stdio servers: an episode's calls, state changes and checks on
the example inventory server; masked tools never reach the server; a server that dies, hangs or
does not start is an environment failure named with its cause (an excluded rollout), never a score."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harnessx.agent.runtime import run_rollout
from harnessx.envs.base import MASKED_TOOLS, AbandonSpec
from harnessx.envs.mcp.env import MCPEnv
from harnessx.envs.mcp.session import ServerFailure
from harnessx.envs.mcp.spec import ServerSpec
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient
from harnessx.tasks import Task, ToolCall
from tests.conftest import require

require("mcp")
ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mcp-inventory"
FAULTY = Path(__file__).resolve().parent / "mcp_servers"
INVENTORY = ServerSpec(command=[sys.executable, "server.py"])


def task(**changes) -> Task:
    base = dict(id="t", env="mcp", split="search", feasible=True, source_id="t", instruction="Add 4 units of CHR-1.",
                metadata={"mcp_setup": [], "mcp_success": {"call": {"tool": "check_item", "arguments": {"sku": "CHR-1"},
                                                                    "expect": {"stock": 9}}}})
    return Task(**{**base, **changes})


async def episode(env: MCPEnv, t: Task, calls: list[ToolCall]):
    try:
        start = await env.reset(t, AbandonSpec(mode="tool"))
        outcomes = [await env.execute(c) for c in calls]
        return start, outcomes, await env.verify()
    finally:
        await env.cleanup()


async def test_an_episode_records_state_changes_and_checks_success_with_the_checking_call():
    start, (read, write), reward = await episode(MCPEnv(INVENTORY, EXAMPLE), task(), [
        ToolCall(name="get_item", arguments={"sku": "CHR-1"}), ToolCall(name="restock", arguments={"sku": "CHR-1", "quantity": 4})])
    assert {"restock", "check_item", "get_item"} <= {t.name for t in start.tools}
    assert not read.state_changes and '"stock": 5' in read.observation  # read-only: nothing recorded
    assert [c.target for c in write.state_changes] == ["restock"] and not write.state_changes[0].forbidden
    assert reward == 1.0
    _, _, short = await episode(MCPEnv(INVENTORY, EXAMPLE), task(), [
        ToolCall(name="restock", arguments={"sku": "CHR-1", "quantity": 3})])
    assert short == 0.0  # the checking call reads 8, not 9


async def test_a_forbidden_call_fails_the_task_and_a_tool_error_is_an_observation():
    t = task(forbidden=["set_status"])
    _, (bad, forbidden, ok), reward = await episode(MCPEnv(INVENTORY, EXAMPLE), t, [
        ToolCall(name="restock", arguments={"sku": "NOPE", "quantity": 1}),
        ToolCall(name="set_status", arguments={"sku": "CHR-1", "status": "active"}),
        ToolCall(name="restock", arguments={"sku": "CHR-1", "quantity": 4})])
    assert bad.error and "no item with sku NOPE" in bad.observation and not bad.state_changes
    assert forbidden.state_changes[0].forbidden
    assert reward == 0.0  # the goal was reached, but a forbidden call was made


async def test_masked_tools_are_not_offered_and_never_reach_the_server():
    t = task(metadata={**task().metadata, MASKED_TOOLS: ["restock"]})
    start, (refused,), reward = await episode(MCPEnv(INVENTORY, EXAMPLE), t, [
        ToolCall(name="restock", arguments={"sku": "CHR-1", "quantity": 4})])
    assert "restock" not in {s.name for s in start.tools}
    assert refused.error and "not available" in refused.observation and not refused.state_changes
    assert reward == 0.0  # the server's stock is unchanged: the call never ran


def faulty(timeout: float = 60.0, *args: str) -> MCPEnv:
    return MCPEnv(ServerSpec(command=[sys.executable, "faulty.py", *args], timeout=timeout), FAULTY)


async def test_a_server_that_dies_mid_call_is_a_named_failure():
    with pytest.raises(ServerFailure, match=r"faulty\.py.*tools/call die.*dying \(asked to\)"):
        await episode(faulty(), task(metadata={}), [ToolCall(name="die")])


async def test_a_server_that_hangs_is_a_named_failure_after_its_timeout():
    with pytest.raises(ServerFailure, match=r"did not answer tools/call hang within 2s"):
        await episode(faulty(2.0), task(metadata={}), [ToolCall(name="echo", arguments={"text": "hi"}), ToolCall(name="hang")])


async def test_a_server_that_does_not_start_is_a_named_failure():
    with pytest.raises(ServerFailure, match=r"start-up.*refusing to start"):
        await episode(faulty(60.0, "--no-start"), task(metadata={}), [])


async def test_a_dead_server_makes_an_excluded_rollout_with_its_cause_never_a_score():
    """Through the runtime: the rollout's status is env_failure, its reward None, its cause named."""
    t = task(metadata={}, reference={"actions": [{"name": "echo", "arguments": {"text": "a"}}, {"name": "die"}]})
    # the simulated agent follows the reference plan: echo, then die
    result, traj = await run_rollout(load_preset("A1"), t, faulty(), ModelClient("sim/ideal"), seed=0)
    assert result.status == "env_failure" and result.reward is None
    errors = traj.of_kind("error")
    assert errors and "dying (asked to)" in errors[-1].data["detail"]


async def test_an_http_server_is_reached_by_its_url():
    """The example server over Streamable HTTP on loopback: the same episode through `url:`."""
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "server.py", "--http", str(port)], cwd=EXAMPLE, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for line in proc.stderr:  # wait for the server to say it listens (uvicorn logs on stderr)
            if "Uvicorn running on" in line:
                break
        else:
            pytest.fail(f"the HTTP server exited with {proc.wait()} before listening")
        env = MCPEnv(ServerSpec(url=f"http://127.0.0.1:{port}/mcp"), EXAMPLE)
        start, (write,), reward = await episode(env, task(), [ToolCall(name="restock", arguments={"sku": "CHR-1", "quantity": 4})])
        assert "restock" in {t.name for t in start.tools} and write.state_changes and reward == 1.0
    finally:
        proc.terminate()
        proc.wait()


async def test_a_litellm_model_acts_through_the_server_tools_schemas(tmp_path, monkeypatch):
    """The path a real model takes (LiteLLM, the tools as OpenAI function schemas from the server's
    input schemas), with a scripted oracle: every feasible task solved, every blocked twin deferred
    for its reason (strict SA), on the example server."""
    import yaml

    from harnessx.agent.runner import Runner
    from harnessx.envs.mcp import MCPSuite
    from harnessx.evaluation import evaluate
    from tests.scripted_models import ORACLE

    monkeypatch.setenv("HARNESSX_MCP_CACHE", str(tmp_path / "cache.json"))
    records = [r for r in yaml.safe_load((EXAMPLE / "tasks.yaml").read_text()) if r["id"] in
               ("restock-lmp-1", "order-chr-1", "cancel-o-100", "price-lmp-2")]
    (tmp_path / "tasks.yaml").write_text(yaml.safe_dump(records))
    (tmp_path / "mcp.yaml").write_text(yaml.safe_dump({"server": {"command": [sys.executable, str(EXAMPLE / "server.py")]},
                                                       "tasks": "tasks.yaml"}))
    suite = MCPSuite(tasks_dir=str(tmp_path))
    families = {t.family for t in suite.tasks() if not t.feasible}
    assert families == {"infeasible", "trap", "ambiguous"}
    result = await evaluate(Runner(suite, ModelClient(ORACLE), concurrency=2), load_preset("A1"), suite.tasks(), [0])
    card = result.scorecard
    assert not result.exclusions
    assert card.solve.k == card.solve.n == len(records) == 4
    assert card.strict_sa.k == card.strict_sa.n == len(suite.tasks()) - 4
