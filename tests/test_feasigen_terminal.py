"""Terminal FeasiGen: the critical "tools" are binaries, masked from the sandbox PATH; the gold
solution replayed under the mask fails, unmasked it passes."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from harnessx.envs.base import AbandonSpec
from harnessx.feasigen import masking
from harnessx.feasigen.check import mechanical_check, replay
from harnessx.feasigen.protocol import binaries
from harnessx.tasks import ToolCall

pytestmark = pytest.mark.requires("bwrap")


@pytest.fixture(scope="module")
def suite():
    from harnessx.envs.terminal.suite import TerminalSuite

    return TerminalSuite(sandbox="bwrap")


def test_masking_python3_takes_it_off_the_path_and_the_gold_solution_fails(suite):
    task = next(t for t in suite.tasks() if t.id == "access-stats-00")
    needed = binaries(task.reference.actions[0].arguments["command"])
    assert needed == ["python3"]
    masked = masking.infeasible_of(task, needed, "terminal", {})
    assert masked.metadata["spec_id"] == task.id and masked.metadata["verify_goal"]
    assert asyncio.run(replay(suite, task))[0] == 1.0           # control: unmasked, the gold solution passes
    check = asyncio.run(mechanical_check(suite, masked))
    assert check.passed and check.reward == 0.0

    async def probe() -> str:
        env = suite.make_env()
        try:
            await env.reset(masked, AbandonSpec(mode="none"))
            out = await env.execute(ToolCall(name="bash", arguments={
                "command": "command -v python3 || echo no-python3; command -v python || echo no-python; "
                           "command -v sort"}))
            return out.observation
        finally:
            await env.cleanup()

    text = asyncio.run(probe())
    assert "no-python3" in text and "no-python" in text and "/sort" in text
    flags = masking.equivalent_left("terminal", {"python3"}, None)
    assert flags and "perl" in flags[0] or shutil.which("perl") is None
