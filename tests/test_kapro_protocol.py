"""KAPRO protocols through the one runtime and LiteLLM: the knowing probe (read-only, tools listed
never offered), the acting run against replayed responses (unknown tool -> "", at most 10
rounds), the scorer, distractors and the simulated over/underuse profiles."""

import asyncio
import json

import pytest

from harnessx.agent.runner import Runner
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.kapro.builtin import builtin_items
from harnessx.kapro.env import KaproEnv, knowing_request, with_distractors
from harnessx.kapro.metrics import kapro_metrics
from harnessx.kapro.benchmark import trials_of
from harnessx.kapro.protocol import parse_tool_decisions
from harnessx.kapro.suite import KaproSuite, distractor_pool
from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script
from harnessx.envs.base import AbandonSpec
from harnessx.tasks import ToolCall

ITEMS = {i.id: i for i in builtin_items()}
HYBRID = next(i for i in ITEMS.values() if i.subspace == "hybrid" and i.split == "search")


class OneItemSuite(KaproSuite):
    def __init__(self, item):
        self.items, self.source = [item], "test"
        self._tasks = [item.to_task()]


def test_replay_keyed_by_tool_name_unknown_is_empty():
    item = next(i for i in ITEMS.values() if "two-orders" in i.id)
    env = KaproEnv()

    async def go():
        start = await env.reset(item.to_task(), AbandonSpec(mode="none"))
        a = await env.execute(ToolCall(name="get_order_details", arguments={}))
        b = await env.execute(ToolCall(name="get_order_details", arguments={}))
        c = await env.execute(ToolCall(name="get_order_details", arguments={}))
        d = await env.execute(ToolCall(name="no_such_tool", arguments={}))
        return start, a, b, c, d

    start, a, b, c, d = asyncio.run(go())
    assert [t.name for t in start.tools] == item.tool_names and start.observation == item.task
    assert start.probe is not None and start.probe.role == "knowing"
    first, second = item.responses["get_order_details"]
    assert (a.observation, b.observation, c.observation, d.observation) == (first, second, second, "")


@pytest.mark.parametrize("text, expected", [
    ('{"tool_decisions": {"a": true, "b": false}}', {"a"}),
    ('Sure.\n```json\n{"tool_decisions": {"S::a": "true", "b": "no"}}\n```', {"a"}),
    ('{"tool_decisions": {}}', set()),
])
def test_parse_tool_decisions(text, expected):
    assert parse_tool_decisions(text) == (expected, None)


@pytest.mark.parametrize("text", ["I think tool a.", '{"decisions": {"a": true}}', '{"tool_decisions": {"a": "maybe"}}'])
def test_unparseable_knowing_replies(text):
    marked, why = parse_tool_decisions(text)
    assert marked is None and why


def _script(name, knowing, acting):
    seen = []

    def script(messages, tools, metadata):
        role = metadata["harnessx"]["role"]
        seen.append((role, messages, tools))
        return knowing(messages) if role == "knowing" else acting(messages, tools)

    return register_script(name, script), seen


def _run(item, model, harness=None, seeds=(0,)):
    suite = OneItemSuite(item)
    runner = Runner(suite, ModelClient(model))
    ev = asyncio.run(evaluate(runner, harness or load_preset("kapro"), suite.tasks(), list(seeds)))
    return ev, runner


def test_knowing_probe_then_acting_run_scored():
    required = HYBRID.required[0]
    internal_tool = next(t for t in HYBRID.tool_names if t != required)

    def knowing(messages):
        return {"content": json.dumps({"tool_decisions": {t: True for t in HYBRID.tool_names}})}

    def acting(messages, tools):
        called = [m for m in messages if m["role"] == "tool"]
        if not called:
            return {"content": "", "tool_calls": [{"name": required, "arguments": {}}]}
        return {"content": HYBRID.answer}

    model, seen = _script("kapro-proto-1", knowing, acting)
    ev, runner = _run(HYBRID, model)
    score = ev.scores[0]
    # the knowing call lists the tools in its text (the paper's prompt) but offers none for calling
    role, messages, tools = seen[0]
    assert role == "knowing" and tools == [] and "tool_decisions" in messages[-1]["content"]
    assert all(t in messages[-1]["content"] for t in HYBRID.tool_names) and HYBRID.task in messages[-1]["content"]
    assert messages[0]["content"] == "You are a helpful assistant."
    # the acting run offers exactly the item's tools, under the harness's system prompt
    assert sorted(t["function"]["name"] for t in seen[1][2]) == sorted(HYBRID.tool_names)
    assert seen[1][1][0]["content"].startswith("You are a helpful assistant. If you need to use any tools")
    assert score.valid and score.values["j_know"] == pytest.approx(0.5) and score.values["j_act"] == 1.0
    assert score.values["over_know"] == pytest.approx(0.5) and score.values["kw_ac"] == 1.0
    assert score.values["pass"] == 1.0 and score.values["tool_calls"] == 1.0
    assert internal_tool not in {e.data["name"] for e in runner.trajectory(ev.results[0]).of_kind("tool_call")}


def test_acting_stops_after_ten_rounds_and_knowing_prompt_is_a_component():
    def knowing(messages):
        assert messages[-1]["content"].startswith("CUSTOM")
        return {"content": '{"tool_decisions": {}}'}

    def acting(messages, tools):
        return {"content": "", "tool_calls": [{"name": "ghost_tool", "arguments": {}}]}

    model, seen = _script("kapro-proto-2", knowing, acting)
    harness = load_preset("kapro").with_component("knowing_prompt", "CUSTOM: {task} / {tool_info}")
    ev, runner = _run(HYBRID, model, harness)
    traj = runner.trajectory(ev.results[0])
    assert sum(1 for r, _, _ in seen if r == "agent") == 10 and ev.results[0].stop_reason == "step_limit"
    assert {e.data["content"] for e in traj.of_kind("tool_result")} == {""}  # unknown tool -> empty string
    score = ev.scores[0]
    assert score.valid and score.values["j_act"] == 0.0 and score.values["tool_calls"] == 10.0
    assert score.values["over_act"] == pytest.approx(1 / 2) and score.values["under_act"] == pytest.approx(1 / 2)


def test_unparsed_knowing_and_model_failure_are_excluded_not_zero():
    model, _ = _script("kapro-proto-3", lambda m: {"content": "no idea"}, lambda m, t: {"content": "ok"})
    ev, _ = _run(HYBRID, model)
    assert not ev.scores[0].valid and ev.scores[0].exclusion == "knowing_unparsed"
    ev, _ = _run(HYBRID, "scripted/kapro-not-registered")
    assert not ev.scores[0].valid and ev.scores[0].exclusion == "model_failure"
    m = kapro_metrics(trials_of(list(ev.scores), list(ev.tasks)), n_resamples=100)
    assert m["all"]["n_valid"] == 0 and m["all"]["excluded"] == {"model_failure": 1} and m["all"]["kas"]["value"] is None


def test_distractors_same_server_first_at_most_ten_never_required():
    items = [i for i in builtin_items() if i.split == "search"]
    pool = distractor_pool(items)
    noisy = with_distractors(items, 25, pool)
    for base, item in zip(items, noisy):
        assert len(item.distractors) == min(10, len(pool) - len(base.tool_names))
        assert set(item.required) == set(base.required) and not set(item.distractors) & set(base.tool_names)
        same = [t for t in pool if pool[t][0] == base.server and t not in base.tool_names]
        if same:
            assert set(item.distractors[:len(same)]) == set(same[:10])
        assert item.id != base.id and len(item.tools) == len(base.tools) + len(item.distractors)
    assert with_distractors(items, 3, pool) == with_distractors(items, 3, pool)


def _sim_metrics(profile):
    suite = KaproSuite()
    tasks = suite.tasks("search")
    ev = asyncio.run(evaluate(Runner(suite, ModelClient(f"sim/{profile}")), load_preset("kapro"), tasks, [0, 1]))
    return kapro_metrics(trials_of(list(ev.scores), tasks), n_resamples=200)


def test_simulated_overuse_and_underuse_profiles():
    over, under = _sim_metrics("kapro-overuse"), _sim_metrics("kapro-underuse")
    o_int, u_int = over["per_subspace"]["internal"], under["per_subspace"]["internal"]
    o_ext, u_ext = over["per_subspace"]["external"], under["per_subspace"]["external"]
    assert o_int["over_act"]["value"] > u_int["over_act"]["value"] + 0.3
    assert o_int["tool_calls"]["value"] > u_int["tool_calls"]["value"]
    assert u_ext["under_act"]["value"] > o_ext["under_act"]["value"] + 0.2
    assert u_ext["kc_aw"]["value"] > o_ext["kc_aw"]["value"]  # underuser: knows, does not act
    assert under["all"]["n_valid"] + sum(under["all"]["excluded"].values()) == 80


def test_knowing_request_is_the_papers_prompt():
    req = knowing_request(HYBRID)
    assert req.component == "knowing_prompt" and "Set a tool to false if internal capabilities are sufficient" in req.template
    assert json.loads(req.fields["tool_info"]) == HYBRID.tools


def test_knowing_prompt_without_placeholders_is_added_to_the_papers_prompt():
    from harnessx.agent.probe_phase import probe_text

    req = knowing_request(HYBRID)
    added = probe_text(req, "Only mark a tool true when the task cannot be done without it.")
    assert added.startswith("Role: You are an agent") and added.endswith("cannot be done without it.")
    assert HYBRID.task in added and "{task}" not in added and "{tool_info}" not in added
    replaced = probe_text(req, "Q: {task}")
    assert replaced == f"Q: {HYBRID.task}"
    assert probe_text(req, "") == probe_text(req, "   ") and "tool_decisions" in probe_text(req, "")


def test_objective_kas_is_avg_kas_of_the_evaluation():
    from harnessx.search.objectives import get_objective

    kas_obj, kas_pass = get_objective("kas"), get_objective("kas_pass")
    assert (kas_obj.value_key, kas_pass.value_key) == ("kas_avg", "kas_avg_pass") and kas_obj.strata == ("feasible",)
    suite = KaproSuite()
    tasks = suite.tasks("search")[:12]
    ev = asyncio.run(evaluate(Runner(suite, ModelClient("sim/baseline")), load_preset("kapro"), tasks, [0]))
    valid = [s for s in ev.scores if s.valid]
    for s in valid:
        jk, ja = s.values["j_know"], s.values["j_act"]
        assert s.values["kas_task"] == pytest.approx(0.0 if jk == 0 or ja == 0 else 2 * jk * ja / (jk + ja))
        assert s.values["kas_avg_pass"] == pytest.approx((s.values["kas_avg"] + s.values["pass"]) / 2)
    m = kapro_metrics(trials_of(list(ev.scores), tasks), n_resamples=100)
    assert kas_obj.rate(ev.scorecard).value == pytest.approx(m["avg"]["kas"]["value"])
    per_task = ev.per_task_success("kas_avg")  # what a paired rule compares: its mean is Avg KAS (one seed)
    assert len(per_task) == len(valid) and sum(per_task.values()) / len(per_task) == pytest.approx(
        m["avg"]["kas"]["value"])
    assert kas_pass.rate(ev.scorecard).value == pytest.approx((m["avg"]["kas"]["value"] + m["all"]["pass"]["value"]) / 2)


def test_simulated_agent_reads_harness_cues_on_tool_need():
    suite = KaproSuite()
    tasks = [t for t in suite.tasks("search") if t.metadata["kapro"]["subspace"] == "internal"]
    base = load_preset("kapro")
    guarded = base.with_component("system_prompt", base.text("system_prompt") +
                                  "\nOnly call a tool when the task cannot be done without it.")

    def over_act(harness):
        ev = asyncio.run(evaluate(Runner(suite, ModelClient("sim/baseline")), harness, tasks, [0, 1, 2]))
        vals = [s.values["over_act"] for s in ev.scores if "over_act" in s.values]
        return sum(vals) / len(vals)

    assert over_act(guarded) < over_act(base) - 0.2
