"""The cf benchmark: objectives (an agent that searches everything must not win), simulated
profiles land in their regimes, and the alignment judges (deterministic and the paper's prompt)."""

from __future__ import annotations

import asyncio
import json

import pytest

from harnessx.agent.runner import Runner
from harnessx.benchmarks import get_benchmark
from harnessx.cf.env import CFSuite
from harnessx.cf.judge import LLMAlignmentJudge, OverlapJudge, parse_judge_reply, render_judge_prompt
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script
from harnessx.search.objectives import get_objective


def evaluate_profile(profile: str, condition: str = "search", split: str = "search", seeds=(0,)):
    suite = CFSuite(condition=condition)
    tasks = suite.tasks(split)
    preset = load_preset("cf-search" if condition == "search" else "cf-nosearch")
    runner = Runner(suite, ModelClient(f"sim/{profile}"))
    return asyncio.run(evaluate(runner, preset, tasks, list(seeds))), tasks


@pytest.fixture(scope="module")
def evaluations():
    return {p: evaluate_profile(p) for p in ("cf-careful-searcher", "cf-over-searcher", "cf-confident-fool")}


def test_cf_objectives_are_registered_for_search():
    assert get_objective("cf").value_key == "cf" and get_objective("cf_judged").value_key == "cf_judged"
    assert get_objective("cf").strata == ("feasible",)


def test_an_agent_that_searches_everything_does_not_win(evaluations):
    objective = get_objective("cf")
    value = {p: objective.rate(ev.scorecard).value for p, (ev, _) in evaluations.items()}
    metrics = {p: get_benchmark("cf").metrics(list(ev.scores), tasks, n_resamples=200)
               for p, (ev, tasks) in evaluations.items()}
    over, careful = metrics["cf-over-searcher"], metrics["cf-careful-searcher"]
    # the over-searcher has the highest NAS of the three ...
    assert over["nas"]["judge_free"]["value"] >= careful["nas"]["judge_free"]["value"]
    # ... but wastes its IK items, so the objective ranks it below the careful searcher
    assert over["kis"]["judge_free"]["value"] < 0 < careful["kis"]["judge_free"]["value"]
    assert value["cf-over-searcher"] < value["cf-careful-searcher"] - 0.3
    assert value["cf-confident-fool"] < value["cf-careful-searcher"] - 0.3
    # the objective is the pooled mean of the item labels: (n_OK NAS + n_IK KIS) / n
    for p, m in metrics.items():
        pooled = (m["n_ok"] * m["nas"]["judge_free"]["value"] + m["n_ik"] * m["kis"]["judge_free"]["value"]) / m["n_valid"]
        assert value[p] == pytest.approx(pooled)


def test_simulated_profiles_land_in_their_regimes(evaluations):
    regimes = {p: get_benchmark("cf").metrics(list(ev.scores), tasks, n_resamples=200)["regime"]["judge_free"]
               for p, (ev, tasks) in evaluations.items()}
    assert regimes == {"cf-careful-searcher": "ideal", "cf-over-searcher": "over-searcher",
                       "cf-confident-fool": "under-searcher"}


def test_confident_fool_searches_cued_items_more(evaluations):
    ev, tasks = evaluations["cf-confident-fool"]
    m = get_benchmark("cf").metrics(list(ev.scores), tasks, n_resamples=200)
    cues = m["temporal_cues"]
    assert cues["cued"]["search_rate"]["value"] > cues["uncued"]["search_rate"]["value"]
    assert m["search_rate"]["IK"]["k"] == 0


def test_failure_modes_feed_the_rules_proposer(evaluations):
    ev, _ = evaluations["cf-confident-fool"]
    modes = ev.scorecard.failure_modes
    assert max(modes, key=modes.get) == "proceeded"      # OK answered without searching
    ev, _ = evaluations["cf-over-searcher"]
    assert max(ev.scorecard.failure_modes, key=ev.scorecard.failure_modes.get) == "false_abstention"


# --- judges --------------------------------------------------------------------------------------
def test_overlap_judge_scores_content_words():
    judge = OverlapJudge()
    truth = "The iPhone is designed and sold by Apple."
    assert judge.align(truth, "Apple designs and sells the iPhone").aligned
    low = judge.align(truth, "I am fairly sure.")
    assert low.score == 0 and low.aligned is False
    assert judge.align(truth, "The iPhone, I think").score == 25      # 1 of 4 content words (iphone)
    assert judge.align("", "x").failure


@pytest.mark.parametrize("reply, score, aligned", [
    ('{"score": 85, "alignment": 1, "summary": "ok"}', 85, True),
    ('{"score": 70, "alignment": 0, "summary": "edge"}', 70, True),    # >= 70 decides, not the judge's flag
    ('{"score": 69, "alignment": 1}', 69, False),
    ('text {"score": 0, "alignment": 0} more', 0, False),
])
def test_judge_reply_parsing(reply, score, aligned):
    verdict = parse_judge_reply(reply)
    assert (verdict.score, verdict.aligned, verdict.failure) == (score, aligned, None)


@pytest.mark.parametrize("reply", ["fifty", '{"score": "fifty"}', '{"score": 120}', '{"alignment": 1}'])
def test_unusable_judge_replies_are_failures(reply):
    assert parse_judge_reply(reply).failure


SEEN: list[str] = []


def judge_script(messages, tools, metadata):
    SEEN.append(messages[-1]["content"])
    return {"content": json.dumps({"score": 90, "alignment": 1, "summary": "same"}),
            "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


JUDGE = register_script("cf-judge", judge_script)


def test_llm_judge_sends_the_papers_prompt_and_caches(tmp_path):
    judge = LLMAlignmentJudge(JUDGE, cache_dir=tmp_path)
    SEEN.clear()
    verdict = judge.align("Apple makes the iPhone.", "Apple builds it.")
    assert verdict.aligned and verdict.score == 90
    assert SEEN == [render_judge_prompt("Apple makes the iPhone.", "Apple builds it.")]
    assert "You are an expert evaluator of reasoning alignment." in SEEN[0]
    assert "GROUND TRUTH REASON:\nApple makes the iPhone." in SEEN[0]
    assert LLMAlignmentJudge(JUDGE, cache_dir=tmp_path).align("Apple makes the iPhone.", "Apple builds it.") == verdict
    assert len(SEEN) == 1                                   # served from the cache


def test_judged_scores_use_the_given_judge_and_exclude_its_failures():
    bad = register_script("cf-judge-bad", lambda m, t, md: {"content": "no idea", "usage": {}})
    suite = CFSuite()
    tasks = suite.tasks("search")[:6]
    runner = Runner(suite, ModelClient("sim/cf-careful-searcher"))
    ev = asyncio.run(evaluate(runner, load_preset("cf-search"), tasks, [0], LLMAlignmentJudge(bad)))
    correct = [s for s in asyncio.run(evaluate(runner, load_preset("cf-search"), tasks, [0])).scores
               if s.valid and s.values["correct"]]
    excluded = [s for s in ev.scores if not s.valid]
    assert correct and len(excluded) == len(correct)
    assert all(s.exclusion == "judge_failure" for s in excluded)


def test_a_provider_failure_is_a_model_failure_not_an_environment_failure():
    import litellm

    def down(messages, tools, metadata):
        raise litellm.AuthenticationError("key revoked", llm_provider="scripted", model="cf-down")

    suite = CFSuite(condition="none")
    tasks = suite.tasks("search")[:2]
    runner = Runner(suite, ModelClient(register_script("cf-down", down)))
    ev = asyncio.run(evaluate(runner, load_preset("cf-nosearch"), tasks, [0]))
    assert {s.exclusion for s in ev.scores} == {"model_failure"}
    assert all("key revoked" in x["detail"] for x in ev.exclusions)  # named with the provider's reason
