"""Parallel tool calls: several calls in one reply run, are recorded and score exactly as one by one.

Two halves. The runtime: a scripted agent that sends a BFCL turn's calls in one message and one that
sends them one per message produce the same tool calls, results, state changes, BFCL verdict and
ladder score (also when the deferral and a later call share a message). The simulator
(`harnessx.sim.parallel`, profile `parallel_calls`): with it on, the same episodes on the same
seeds make the same calls in the same order with fewer model calls; a call whose argument only an
earlier call's result shows waits for that result; text tool format stays one call per reply.
"""

from __future__ import annotations

import pytest
from conftest import require

require("bfcl")  # before the imports below: they import bfcl_eval

from harnessx.agent.runner import Runner  # noqa: E402
from harnessx.agent.runtime import run_rollout  # noqa: E402
from harnessx.envs.bfcl.build import entry_task  # noqa: E402
from harnessx.envs.bfcl.data import load_category  # noqa: E402
from harnessx.envs.bfcl.env import BfclEnv  # noqa: E402
from harnessx.envs.bfcl.suite import BfclSuite  # noqa: E402
from harnessx.evaluation import evaluate  # noqa: E402
from harnessx.harness.presets import load_preset  # noqa: E402
from harnessx.models.client import ModelClient  # noqa: E402
from harnessx.models.providers import register_script  # noqa: E402
from harnessx.scoring import score_rollout  # noqa: E402
from harnessx.sim import parallel  # noqa: E402
from harnessx.sim.profile import _REGISTERED, load_profile, register_profile  # noqa: E402


def _task(category: str, index: int):
    return entry_task(next(e for e in load_category(category) if e.index == index), "search")


def _turn(messages) -> tuple[int, int]:
    """(user turn, calls made in it): A1 sends no harness messages, so every later user message is a turn."""
    turn, made = 0, 0
    for m in messages[2:]:
        if m["role"] == "user":
            turn, made = turn + 1, 0
        elif m["role"] == "assistant":
            made += len(m.get("tool_calls") or [])
    return turn, made


def _gold_agent(name: str, batched: bool, defer_with_next: bool = False) -> ModelClient:
    """Plays BFCL's ground truth turn by turn: the turn's calls in one message (`batched`) or one per
    message. `defer_with_next`: at the blocked turn, defers and then makes the next turn's first call
    (a fabricated call), in one message or in two."""
    def script(messages, tools, metadata):
        sim = metadata["harnessx"]["sim"]
        actions, counts = sim["reference"]["actions"], sim["reference"]["turns"]
        turn, made = _turn(messages)
        gold = [{"name": a["name"], "arguments": a["arguments"]} for a in
                actions[sum(counts[:turn]): sum(counts[: turn + 1])]]
        if defer_with_next and turn == (sim.get("evidence") or {}).get("turn"):
            nxt = actions[sum(counts[: turn + 1])]
            gold = [{"name": "defer_task", "arguments": {"category": sim["family"], "blocker": "sort is not available",
                                                         "rationale": "the request needs sort"}},
                    {"name": nxt["name"], "arguments": nxt["arguments"]}]
        if made < len(gold):
            return {"content": "", "tool_calls": gold[made:] if batched else gold[made: made + 1]}
        return {"content": "Turn handled."}
    return ModelClient(register_script(name, script), max_retries=0)


def _events(traj) -> list[tuple]:
    """What ran and how it was recorded, without step numbers and model-call bookkeeping."""
    keep = ("tool_call", "tool_result", "state_change", "abandon", "evidence")
    out = []
    for e in traj.events:
        if e.kind in keep:
            data = {k: v for k, v in e.data.items() if k not in ("id", "tool_s")}
            out.append((e.kind, e.author, repr(sorted(data.items()))))
    return out


def _ladder(score) -> tuple:
    return (score.valid, score.m0, score.m1, score.authorship, score.naive_m2, score.m2, score.m3, score.relaxed_sa,
            score.strict_sa, score.solved, score.false_abstention)


async def _pair(task, name: str, **kw):
    harness = load_preset("A1").with_switches(max_steps=60)  # one call per message must not hit the step limit
    out = []
    for batched in (True, False):
        agent = _gold_agent(f"par-{name}-{batched}", batched, **kw)
        result, traj = await run_rollout(harness, task, BfclEnv(), agent, seed=0)
        assert result.status == "ok"
        out.append((result, traj, score_rollout(task, traj, result)))
    return out


@pytest.mark.parametrize("category,index", [("base", 0), ("miss_func", 0), ("miss_param", 0)])
async def test_a_turns_calls_in_one_message_run_and_score_as_one_by_one(category, index):
    task = _task(category, index)
    (r_par, t_par, s_par), (r_seq, t_seq, s_seq) = await _pair(task, f"{category}{index}")
    assert _events(t_par) == _events(t_seq)
    assert r_par.reward == r_seq.reward == 1.0  # BFCL's checker passes the ground truth both ways
    assert _ladder(s_par) == _ladder(s_seq)
    assert len(t_par.of_kind("tool_call")) == len(t_seq.of_kind("tool_call")) == sum(task.reference.turns)
    # the only difference: one model call per turn with calls instead of one per call
    busy_turns = sum(1 for n in task.reference.turns if n)
    assert r_seq.usage.calls - r_par.usage.calls == sum(task.reference.turns) - busy_turns > 0


async def test_a_deferral_and_a_later_call_in_one_message_both_run():
    """A multi-turn episode goes on past a deferral, so the reply's later call runs (as it would in
    the next message) and is recorded and scored as the forbidden call it is."""
    task = _task("miss_func", 0)
    (r_par, t_par, s_par), (r_seq, t_seq, s_seq) = await _pair(task, "defer-next", defer_with_next=True)
    assert _events(t_par) == _events(t_seq)
    names = [e.data["name"] for e in t_par.of_kind("tool_call")]
    at = names.index("defer_task")
    assert names[at + 1] == task.reference.actions[sum(task.reference.turns[:3])].name  # executed, not dropped
    results = t_par.of_kind("tool_result")
    assert len(results) == len(t_par.of_kind("tool_call"))  # every call answered (native: one tool message each)
    assert _ladder(s_par) == _ladder(s_seq)
    forbidden = [e for e in t_par.of_kind("state_change") if e.data.get("forbidden")]
    assert forbidden and forbidden[0].data["change"] == "sort"  # the fabricated call is on the record


# --- the simulator ---------------------------------------------------------------------------
def test_a_call_needing_an_earlier_result_waits_for_it():
    steps = [("cd", {"folder": "docs"}), ("mv", {"source": "a.txt", "destination": "old"}),
             ("close_ticket", {"ticket_id": 4711}), ("ls", {"a": True})]
    shown = "Go to docs and move a.txt into OLD, then close the ticket you find."
    assert parallel.batch(steps, shown, enabled=True) == steps[:2]  # 4711 only a result will show
    assert parallel.batch(steps[2:], shown + " ticket 4711 found", enabled=True) == steps[2:]
    assert parallel.batch(steps, shown, enabled=False) == steps[:1]
    assert parallel.batch([], shown, enabled=True) == []
    assert parallel.visible(("f", {"x": 2.5, "y": [1, "Docs"], "z": None}), "docs at 2.5, row 1")
    assert not parallel.visible(("f", {"x": 3}), "docs at 2.5")


def _tasks(n_blocked: int = 6) -> list:
    tasks = BfclSuite().tasks("search")
    blocked = [t for t in tasks if not t.feasible][:n_blocked]
    return blocked + [t for t in tasks if t.feasible and t.source_id in {b.source_id for b in blocked}]


async def _sim_run(tasks, harness, parallel_calls: bool, seeds=(0, 1)):
    """sim/baseline with `parallel_calls` set (same name, so the same episode seeds)."""
    base = load_profile("baseline")
    register_profile(base.model_copy(update={"parallel_calls": parallel_calls}))
    try:
        runner = Runner(BfclSuite(), ModelClient("sim/baseline"), cache=None)
        ev = await evaluate(runner, harness, tasks, list(seeds))
        return ev, {(r.task_id, r.seed): runner.trajectory(r) for r in ev.results}
    finally:
        _REGISTERED.pop("baseline", None)
        load_profile.cache_clear()


def _calls(traj) -> list[tuple]:
    return [(e.data["name"], repr(sorted(e.data["arguments"].items()))) for e in traj.of_kind("tool_call")]


@pytest.mark.slow
async def test_parallel_calls_change_nothing_but_the_number_of_model_calls():
    assert load_profile("baseline").parallel_calls is True
    tasks = _tasks()
    harness = load_preset("A1").with_switches(max_steps=60)  # no episode cut short either way
    ev_par, tr_par = await _sim_run(tasks, harness, True)
    ev_seq, tr_seq = await _sim_run(tasks, harness, False)
    assert set(tr_par) == set(tr_seq) and len(tr_par) == 2 * len(tasks) == 24
    for key in tr_par:
        assert _calls(tr_par[key]) == _calls(tr_seq[key]), key
        assert _events(tr_par[key]) == _events(tr_seq[key]), key
    by_key = lambda ev: {(s.task_id, s.seed): _ladder(s) for s in ev.scores}  # noqa: E731
    assert by_key(ev_par) == by_key(ev_seq)
    assert [r.reward for r in ev_par.results] == [r.reward for r in ev_seq.results]
    calls_par = sum(r.usage.calls for r in ev_par.results)
    calls_seq = sum(r.usage.calls for r in ev_seq.results)
    assert calls_par < calls_seq
    replies = [e for t in tr_par.values() for e in t.of_kind("model_call")]
    assert len(replies) == calls_par
    # the saving is exactly the calls that rode along in a reply with others
    batched_extra = 0
    for traj in tr_par.values():
        per_step: dict[int, int] = {}
        for e in traj.of_kind("tool_call"):
            per_step[e.step] = per_step.get(e.step, 0) + 1
        batched_extra += sum(n - 1 for n in per_step.values())
    assert batched_extra == calls_seq - calls_par > 0


async def test_text_tool_format_sends_one_call_per_reply():
    tasks = _tasks(2)
    harness = load_preset("A1").with_switches(max_steps=60, tool_format="text")
    ev_par, tr_par = await _sim_run(tasks, harness, True, seeds=(0,))
    ev_seq, _ = await _sim_run(tasks, harness, False, seeds=(0,))
    assert sum(r.usage.calls for r in ev_par.results) == sum(r.usage.calls for r in ev_seq.results)
    for traj in tr_par.values():
        steps = [e.step for e in traj.of_kind("tool_call")]
        assert len(steps) == len(set(steps))  # never two calls in one reply
