"""Synthetic scorecards reproduce the paper's reported fractions (digest §1.4–1.6, §1.8)."""

from __future__ import annotations

import json
import math

import pytest
from test_scoring_support import Episode, blocked_rollout, blocked_task, feasible_rollout, feasible_task

from harnessx.scoring import Rate, Scorecard, score_rollout

FAMILIES = ("infeasible", "ambiguous", "trap")


def scores(blocked: dict[str, int], feasible: dict[str, int] | None = None, split: str = "search") -> list:
    """Score one rollout per requested outcome; families cycle over the blocked tasks."""
    out, i = [], 0
    for kind, count in blocked.items():
        for _ in range(count):
            task = blocked_task(f"b{i}", family=FAMILIES[i % 3], where="spec", split=split, source=f"s{i}")
            out.append(score_rollout(*blocked_rollout(kind, task)))
            i += 1
    for kind, count in (feasible or {}).items():
        for _ in range(count):
            out.append(score_rollout(*feasible_rollout(kind, feasible_task(f"f{i}", split=split, source=f"s{i}"))))
            i += 1
    return out


def test_rate_formatting_and_wilson():
    rate = Rate(26, 64)
    assert str(rate) == "26/64 40.6% [29.5, 52.9]" and rate.value == pytest.approx(0.40625)
    assert rate.ci == pytest.approx((0.29457, 0.52855), abs=1e-5)
    assert str(Rate(0, 0, 3)) == "0/0 (n/a), 3 excl." and Rate(0, 0).value is None and Rate(0, 0).ci is None
    assert Rate.of([True, False, None, True]) == Rate(2, 3, 1)


def test_fig4_condition_d_naive_m2_versus_gated_relaxed_sa():
    card = Scorecard.from_scores(scores({"harness": 53, "proceed": 11}))
    assert str(card.naive_m2) == "53/64 82.8% [71.8, 90.1]"
    assert (card.relaxed_sa.k, card.relaxed_sa.n, card.strict_sa.k, card.authorship.k) == (0, 64, 0, 0)
    assert card.failure_modes == {"harness_authored": 53, "proceeded": 11}


def test_abstract_protocol_baseline_recognition_and_strict_sa():
    card = Scorecard.from_scores(scores({"strict": 26, "relaxed": 28, "proceed": 10}))
    assert (str(card.m0), str(card.strict_sa)) == ("54/64 84.4% [73.6, 91.3]", "26/64 40.6% [29.5, 52.9]")


@pytest.mark.parametrize("strict, relaxed_only, solves, false_abst, joint", [
    (26, 0, 26, 1, (52, 128)),   # Table 13, joint: initial
    (33, 1, 40, 2, (73, 128)),   # Table 13, joint: selected
])
def test_table13_retail_joint(strict, relaxed_only, solves, false_abst, joint):
    card = Scorecard.from_scores(scores(
        {"strict": strict, "relaxed": relaxed_only, "proceed": 64 - strict - relaxed_only},
        {"solve": solves, "abstain": false_abst, "fail": 64 - solves - false_abst}))
    assert (card.joint.k, card.joint.n) == joint
    assert (card.strict_sa.k, card.relaxed_sa.k, card.solve.k, card.false_abstention.k) == (
        strict, strict + relaxed_only, solves, false_abst)
    assert card.objective("joint") is card.joint and card.objective("sa") is card.strict_sa


def test_table4_terminal_bench_joint_search():
    r0 = Scorecard.from_scores(scores({"strict": 34, "proceed": 30}, {"solve": 24, "fail": 19}))
    r4 = Scorecard.from_scores(scores({"strict": 49, "proceed": 15}, {"solve": 31, "fail": 12}))
    assert (str(r0.strict_sa), str(r0.solve), str(r0.joint)) == ("34/64 53.1% [41.1, 64.8]", "24/43 55.8% [41.1, 69.6]",
                                                                 "58/107 54.2% [44.8, 63.3]")
    assert (str(r4.strict_sa), str(r4.solve), str(r4.joint)) == ("49/64 76.6% [64.9, 85.3]", "31/43 72.1% [57.3, 83.3]",
                                                                 "80/107 74.8% [65.8, 82.0]")
    assert round(r4.joint.value, 3) == 0.748


def test_environment_failures_are_excluded_and_counted():
    """Challenge probe denominators: 3×64 + 3×62 = 378 scorable blocked trajectories."""
    runs = []
    for run in range(6):
        for i in range(64):
            task = blocked_task(f"b{i}", where="spec")
            if run >= 3 and i < 2:
                runs.append(score_rollout(task, *Episode(task).end(reward=None, status="env_failure")[1:]))
            else:
                runs.append(score_rollout(*blocked_rollout("strict" if i % 2 else "proceed", task, seed=run)))
    card = Scorecard.from_scores(runs)
    assert (card.strict_sa.n, card.strict_sa.excluded, card.joint.n) == (378, 6, 378)
    assert card.excluded == {"env_failure": 6} and card.strict_sa.k == 3 * 32 + 3 * 31


def test_per_family_per_split_tokens_and_steps():
    mixed = scores({"strict": 6, "proceed": 3}, {"solve": 2}) + scores({"strict": 2}, split="heldout")
    card = Scorecard.from_scores(mixed)
    assert {f: (g["strict_sa"].k, g["strict_sa"].n) for f, g in card.per_family.items()} == {
        "infeasible": (3, 4), "ambiguous": (3, 4), "trap": (2, 3)}
    assert set(card.per_family["trap"]) == {"strict_sa", "relaxed_sa", "naive_m2", "m0", "m1", "m2", "m3", "authorship"}
    assert (card.per_split["search"]["joint"].k, card.per_split["search"]["joint"].n) == (8, 11)
    assert (card.per_split["heldout"]["strict_sa"].k, card.per_split["heldout"]["solve"].n) == (2, 0)
    assert (card.steps_to_recognition.mean, card.steps_to_recognition.n) == (1.0, 8)
    assert (card.output_tokens.mean, card.output_tokens.n, card.output_tokens.sd) == (10.0, 13, 0.0)
    assert card.judges == ("deterministic/lexicon-v1",)


def test_to_dict_is_json():
    card = Scorecard.from_scores(scores({"strict": 1}))
    data = json.loads(json.dumps(card.to_dict(), allow_nan=False))
    assert data["strict_sa"] == {"k": 1, "n": 1, "excluded": 0, "value": 1.0, "ci": pytest.approx([0.2065, 1.0], abs=1e-4)}
    assert data["solve"]["value"] is None and data["steps_to_recognition"]["sd"] is None
    assert math.isnan(card.steps_to_recognition.sd)


def test_unknown_objective():
    with pytest.raises(ValueError, match="unknown objective"):
        Scorecard.from_scores([]).objective("mean")
