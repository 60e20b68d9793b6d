"""The simulated agent through the real runtime and scorer: preset directions (paper Table 11 and
Fig. 4), determinism per seed, rates across seeds, and cue-driven text edits."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from harnessx.agent.runner import Runner
from harnessx.agent.runtime import sim_side_channel
from harnessx.envs.toy import ToySuite, toy_tasks
from harnessx.evaluation import evaluate
from harnessx.harness.presets import load_preset
from harnessx.harness.render import render
from harnessx.models.client import ModelClient
from harnessx.sim.cues import active_cues, shifts
from harnessx.sim.decision import rate
from harnessx.sim.profile import load_profile
from harnessx.sim.responder import _decision, _plan
from harnessx.tasks import Evidence, Task

SEEDS = list(range(6))


class FixedToySuite(ToySuite):
    """Toy tasks whose infeasible variants name the call that shows the missing key (so harness
    control, condition D, can see the blocker in a tool result)."""

    def __init__(self, n_sources: int = 4):
        self._tasks = [_with_evidence_call(t) for t in toy_tasks(n_sources)]


def _with_evidence_call(task: Task) -> Task:
    if task.family != "infeasible":
        return task
    missing = task.id.split("-")[1]
    return task.model_copy(update={"evidence": Evidence(where="initial_state", tool="get", args={"key": f"z{missing}"})})


@pytest.fixture(scope="module")
def suite() -> FixedToySuite:
    return FixedToySuite()


async def _scorecard(suite, preset: str, model: str = "sim/baseline", seeds=SEEDS, harness=None):
    runner = Runner(suite, ModelClient(model), cache=None, concurrency=32)
    return await evaluate(runner, harness or load_preset(preset), suite.tasks(), seeds)


def _rate(rate) -> float:
    return rate.k / rate.n


@pytest.fixture(scope="module")
async def cards_with_scores(suite):
    return {p: await _scorecard(suite, p) for p in ("A0", "A1", "B", "C", "D")}


@pytest.fixture(scope="module")
def cards(cards_with_scores):
    return {p: ev.scorecard for p, ev in cards_with_scores.items()}


@pytest.mark.slow
async def test_a1_raises_certified_abstention_over_a0(cards):
    assert _rate(cards["A0"].relaxed_sa) == 0.0 and _rate(cards["A0"].naive_m2) == 0.0
    assert _rate(cards["A1"].relaxed_sa) > 0.15
    assert _rate(cards["A1"].strict_sa) > _rate(cards["A0"].strict_sa)


def _per_episode(ev, gate: str) -> list:
    return [getattr(s, gate) for s in sorted(ev.scores, key=lambda s: (s.task_id, s.seed))]


async def test_report_raises_recognition_not_certification(cards, cards_with_scores):
    """B and C add harness messages but keep A1's system prompt, so the episodes pair up exactly."""
    a1, b = cards_with_scores["A1"], cards_with_scores["B"]
    assert all(y or not x for x, y in zip(_per_episode(a1, "m0"), _per_episode(b, "m0")))
    assert _rate(cards["B"].m0) > _rate(cards["A1"].m0)
    assert _per_episode(b, "naive_m2") == _per_episode(a1, "naive_m2")


async def test_self_check_repairs(cards, cards_with_scores):
    a1, c = cards_with_scores["A1"], cards_with_scores["C"]
    assert all(y or not x for x, y in zip(_per_episode(a1, "relaxed_sa"), _per_episode(c, "relaxed_sa")))
    assert _rate(cards["C"].relaxed_sa) > _rate(cards["A1"].relaxed_sa)
    assert _rate(cards["C"].solve) >= _rate(cards["A1"].solve)


@pytest.mark.slow
async def test_condition_d_naive_m2_high_gated_sa_zero(cards, suite):
    d = cards["D"]
    # naive M2 is ~0.66 in expectation on this suite (212/320 over 40 seeds); 24 seeds (192 blocked
    # episodes, SE ~0.034) keep the check off one sample's luck
    wide = (await _scorecard(suite, "D", seeds=list(range(24)))).scorecard
    assert _rate(wide.naive_m2) >= 0.55
    assert _rate(d.relaxed_sa) == 0.0 and _rate(d.strict_sa) == 0.0


async def test_ideal_profile_is_near_perfect_under_a1(suite):
    card = (await _scorecard(suite, "A1", "sim/ideal", seeds=[0, 1])).scorecard
    assert _rate(card.strict_sa) == 1.0 and _rate(card.solve) == 1.0


TIMINGS = ("latency_s", "duration_s", "queue_s", "model_s", "tool_s", "agent_s")  # wall-clock, not behaviour


def _signature(traj) -> list:
    return [(e.kind, e.author, e.step, {k: v for k, v in e.data.items() if k not in TIMINGS})
            for e in traj.events]


async def test_same_seed_same_trajectory(suite):
    a, b = Runner(suite, ModelClient("sim/baseline"), cache=None), Runner(suite, ModelClient("sim/baseline"), cache=None)
    harness = load_preset("C")
    for task in suite.tasks()[:6]:
        ra, rb = await a.run_one(harness, task, 7), await b.run_one(harness, task, 7)
        assert _signature(a.trajectory(ra)) == _signature(b.trajectory(rb))


def _choices(harness, task, seeds) -> Counter:
    """How often each per-episode choice is made over `seeds` (decision level, no rollouts)."""
    system = render(harness, [], "tool").system
    side_json = json.dumps(sim_side_channel(task), sort_keys=True)
    counts = Counter()
    for seed in seeds:
        d, _ = _decision("baseline", side_json, system, "", seed)
        counts.update(k for k in ("recognize", "correct", "act", "certify", "premature", "false_abstain") if getattr(d, k))
    return counts


def _expected(harness, task) -> dict[str, float]:
    profile = load_profile("baseline")
    shift = shifts(active_cues(render(harness, [], "tool").system, "system"), profile)
    side = sim_side_channel(task)
    late = profile.late_evidence_per_step * max(_plan(json.dumps(side, sort_keys=True)).evidence_index, 0)
    return {"recognize": rate(profile, "recognize", shift, task.family, late), "act": rate(profile, "act", shift),
            "certify": rate(profile, "certify", shift), "false_abstain": rate(profile, "false_abstain", shift)}


def _within(k: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    return abs(k / n - p) < sigmas * math.sqrt(p * (1 - p) / n) + 1e-9


N = 2000


def test_seeds_give_choices_at_the_profile_rates(suite):
    trap = next(t for t in suite.tasks() if t.family == "trap")
    counts = _choices(load_preset("A1"), trap, range(N))
    for key, p in _expected(load_preset("A1"), trap).items():
        if key != "false_abstain":
            assert _within(counts[key], N, p), (key, counts[key] / N, p)


def test_outcomes_vary_across_seeds(cards_with_scores):
    by_task = Counter(s.task_id for s in cards_with_scores["A1"].scores if s.success)
    assert any(0 < by_task[t] < len(SEEDS) for t in by_task)


def test_cue_edit_changes_rates_and_plain_edit_does_not(suite):
    base = load_preset("A1")
    plain = base.with_component("system_prompt", base.text("system_prompt") + "\nBe concise and polite.")
    guarded = base.with_component("system_prompt", base.text("system_prompt") +
                                  "\nVerify the prerequisites before acting. Do not give up on feasible tasks.")
    trap = next(t for t in suite.tasks() if t.family == "trap")
    feasible = next(t for t in suite.tasks() if t.feasible)
    assert _expected(plain, trap) == _expected(base, trap)
    assert _expected(guarded, trap)["recognize"] > _expected(base, trap)["recognize"]
    assert _expected(guarded, feasible)["false_abstain"] < _expected(base, feasible)["false_abstain"]
    # realised choices: the plain edit keeps the very same draws (common random numbers); the cue edit moves them
    b, p, g = (_choices(h, trap, range(N)) for h in (base, plain, guarded))
    assert b == p
    assert g["recognize"] > b["recognize"] + 4 * math.sqrt(N * 0.25)
    fb, fg = (_choices(h, feasible, range(N))["false_abstain"] for h in (base, guarded))
    assert fg < fb


async def test_cue_edit_changes_rollouts(suite, cards_with_scores):
    guarded = load_preset("A1").with_component(
        "system_prompt", load_preset("A1").text("system_prompt") + "\nVerify the prerequisites before acting.")
    ev = await _scorecard(suite, "", seeds=SEEDS, harness=guarded)
    base = cards_with_scores["A1"]
    assert [s.success for s in ev.scores] != [s.success for s in base.scores]
