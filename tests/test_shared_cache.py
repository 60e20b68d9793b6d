"""One rollout cache shared by every command of a runs directory, keyed by the full rollout key."""

from __future__ import annotations

from harnessx.agent.runner import RolloutCache, Runner, rollout_key
from harnessx.agent.shared_cache import shared_cache
from harnessx.envs.toy import ToySuite
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient


async def test_a_rollout_run_by_one_command_is_a_hit_for_another(tmp_path):
    suite = ToySuite(n_sources=1)
    harness = load_preset("A1")
    shared = shared_cache(tmp_path)
    search = Runner(suite, ModelClient("sim/baseline"), RolloutCache(tmp_path / "search" / "rollouts", shared=shared))
    first = await search.run_many(harness, suite.tasks(), [0])
    assert search.cache_hits == 0 and search.model_calls > 0

    evaluation = Runner(suite, ModelClient("sim/baseline"), RolloutCache(tmp_path / "eval" / "rollouts", shared=shared))
    again = await evaluation.run_many(harness, suite.tasks(), [0])
    assert evaluation.cache_hits == len(first) and evaluation.model_calls == 0
    assert [r.key for r in again] == [r.key for r in first]
    assert len(list((tmp_path / "eval" / "rollouts").glob("*/*.jsonl"))) == len(first)  # the run dir has its copy
    evaluation.trajectory(again[0]).verify()


def test_the_key_holds_the_server_and_the_sampling_defaults():
    task = ToySuite(n_sources=1).tasks()[0]
    harness = load_preset("A1")
    keys = {rollout_key(harness, task, 0, ModelClient(model, **kw).identity)
            for model, kw in [("sim/baseline", {}), ("sim/baseline", {"temperature": 0.7}),
                              ("sim/baseline", {"top_p": 0.9}), ("openai/x", {"api_base": "http://127.0.0.1:1/v1"}),
                              ("openai/x", {"api_base": "http://127.0.0.1:2/v1"})]}
    assert len(keys) == 5
    assert ModelClient("openai/x").identity == "openai/x"  # default sampling adds nothing to a key
    # a simulated model's key names its profile's contents (tests/test_sim_cache_identity.py)
    assert ModelClient("sim/baseline").identity.startswith("sim/baseline#")


def test_a_terminal_rollout_key_names_the_shell_semantics():
    from harnessx.agent.runner import Runner
    from harnessx.envs.terminal.suite import TerminalSuite

    # v3 (agent ended before a verifier of its own, episode limits) and the sandbox backend, resolved
    runner = Runner(TerminalSuite(sandbox="unshare"), ModelClient("sim/baseline"))
    assert runner.model_id == ModelClient("sim/baseline").identity + "|terminal=shell-v3|sandbox=unshare"
