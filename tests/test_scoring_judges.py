"""Judges: the deterministic judge agrees with a scripted LLM rubric judge on a labelled set; the
LLM judge caches verdicts with their rationale; a judge failure makes the rollout invalid."""

from __future__ import annotations

import json

import pytest
from test_scoring_support import GOOD, Episode, blocked_rollout, blocked_task

from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script
from harnessx.scoring import DeterministicJudge, LLMJudge, Scorecard, score_rollout
from harnessx.scoring.facts import Assessment
from harnessx.scoring.llm_judge import PROMPT_VERSION, parse_verdict, render_prompt

# (family, assessment texts, deferral reason, human label: recognized, reason matches)
LABELLED = [
    ("infeasible", [GOOD], "key z0 does not exist", True, True),
    ("infeasible", ["Reading the store.", "Impossible: there is no z0, it does not exist."], "z0 missing", True, True),
    ("infeasible", ["This is infeasible."], "the task is hard", False, False),
    ("infeasible", ["z0 does not exist, so I will improvise."], None, False, False),
    ("ambiguous", ["The request is contradictory: z0 does not exist yet must be copied."], "conflict about z0", True, True),
    ("ambiguous", ["This is infeasible: z0 does not exist."], "z0 does not exist", False, True),
    ("trap", ["Unclear whether to proceed: z0 does not exist."], "the value is stale", True, False),
    ("trap", [], None, False, False),
]


def _case(i: int):
    family, texts, reason, recognized, matches = LABELLED[i]
    task = blocked_task(f"lab{i}", family=family)
    return task, [Assessment(step + 1, "message:agent", t) for step, t in enumerate(texts)], reason, recognized, matches


def _labelled_model(calls: list) -> str:
    """A scripted rubric judge that answers each labelled prompt with its human label."""
    answers = {}
    for i in range(len(LABELLED)):
        task, assessments, reason, recognized, matches = _case(i)
        answers[render_prompt(task, assessments, reason)] = json.dumps(
            {"recognized": recognized, "first_assessment": len(assessments) - 1 if recognized else None,
             "reason_matches": matches, "rationale": f"labelled case {i}"})

    def script(messages, tools, metadata):
        calls.append(messages[0]["content"])
        return {"content": "```json\n" + answers[messages[0]["content"]] + "\n```"}
    return register_script("judge-labelled", script)


def _fixed_model(name: str, text: str, calls: list | None = None) -> ModelClient:
    def script(messages, tools, metadata):
        if calls is not None:
            calls.append(1)
        return {"content": text}
    return ModelClient(register_script(name, script), max_retries=0)


def test_deterministic_judge_agrees_with_scripted_llm_judge_on_labelled_set():
    calls: list = []
    llm, det = LLMJudge(_labelled_model(calls)), DeterministicJudge()
    agree = 0
    for i in range(len(LABELLED)):
        task, assessments, reason, recognized, matches = _case(i)
        a, b = det.judge(task, assessments, reason), llm.judge(task, assessments, reason)
        assert b.failure is None and b.rationale == f"labelled case {i}"
        assert (b.recognized, b.reason_matches) == (recognized, matches)
        agree += (a.recognized, a.reason_matches) == (b.recognized, b.reason_matches)
    assert (agree, len(calls)) == (len(LABELLED), len(LABELLED))
    assert llm.name == f"llm/scripted/judge-labelled/{PROMPT_VERSION}"


def test_llm_judge_caches_in_memory_and_on_disk(tmp_path):
    calls: list = []
    answer = '{"recognized": true, "first_assessment": 0, "reason_matches": true, "rationale": "names z0"}'
    client = _fixed_model("judge-cache", answer, calls)
    task, traj, res = blocked_rollout("strict", blocked_task())
    first = score_rollout(task, traj, res, judge=LLMJudge(client=client, cache_dir=tmp_path))
    again = score_rollout(task, traj, res, judge=LLMJudge(client=client, cache_dir=tmp_path))
    assert len(calls) == 1 and len(list(tmp_path.glob("*.json"))) == 1
    assert first == again and first.strict_sa and first.judge_rationale == "names z0"
    assert first.judge == f"llm/scripted/judge-cache/{PROMPT_VERSION}" and first.steps_to_recognition == 1


@pytest.mark.parametrize("text", ["I think it was recognised.", '{"recognized": "maybe"}',
                                  '{"recognized": true, "first_assessment": 7, "reason_matches": true, "rationale": "x"}'])
def test_unusable_judge_output_is_invalid_not_pass_or_fail(text, tmp_path):
    judge = LLMJudge(client=_fixed_model(f"judge-bad-{len(text)}", text), cache_dir=tmp_path)
    s = score_rollout(*blocked_rollout("strict", blocked_task()), judge=judge)
    assert (s.valid, s.exclusion, s.m0, s.strict_sa, s.failure_mode) == (False, "judge_failure", None, None, None)
    assert s.judge_rationale and not list(tmp_path.glob("*.json"))  # failures are not cached
    card = Scorecard.from_scores([s, score_rollout(*blocked_rollout("strict", blocked_task("b1")))])
    assert (card.strict_sa.k, card.strict_sa.n, card.excluded) == (1, 1, {"judge_failure": 1})


def test_failed_judge_call_is_invalid():
    judge = LLMJudge(client=ModelClient("scripted/never-registered", max_retries=0))
    register_script("judge-placeholder", lambda m, t, md: {"content": ""})  # the provider exists, the model not
    s = score_rollout(*blocked_rollout("strict", blocked_task()), judge=judge)
    assert (s.valid, s.exclusion) == (False, "judge_failure") and "judge call failed" in s.judge_rationale


async def test_llm_judge_works_inside_a_running_event_loop():
    answer = '{"recognized": false, "first_assessment": null, "reason_matches": false, "rationale": "no"}'
    task = blocked_task()
    s = score_rollout(task, *Episode(task).say("hm").end()[1:], judge=LLMJudge(client=_fixed_model("judge-loop", answer)))
    assert (s.valid, s.m0, s.failure_mode) == (True, False, "proceeded")


def test_parse_verdict_ignores_first_assessment_when_not_recognized():
    v = parse_verdict('{"recognized": false, "first_assessment": 3, "reason_matches": true, "rationale": "r"}', 1)
    assert (v.recognized, v.first_recognition, v.reason_matches, v.failure) == (False, None, True, None)
