"""Confident Fools labels and metrics: the digest's derived Mistral check and every label cell."""

from __future__ import annotations

import pytest

from harnessx.cf.labels import Response, kis_label, nas_label
from harnessx.cf.metrics import condition_metrics, regime


def R(kind, condition, choice, key=1, searched=False, aligned=None, cued=False, item="q"):
    return Response(item_id=item, kind=kind, condition=condition, choice=choice, key=key, searched=searched,
                    aligned=aligned, cued=cued)


def mistral_with_search() -> list[Response]:
    """Digest §4.3: 191 valid OK items; searched 39 (38 correct, 1 wrong); not searched 152
    (90 abstain, 20 wrong, 42 correct)."""
    rows = ([("s", 1)] * 38 + [("s", 2)] + [("n", 5)] * 90 + [("n", 3)] * 20 + [("n", 1)] * 42)
    return [R("OK", "search", choice, key=1, searched=s == "s", item=f"ok{i}") for i, (s, choice) in enumerate(rows)]


def test_mistral_judge_free_nas_is_minus_0_377():
    responses = mistral_with_search()
    out = condition_metrics(responses, n_resamples=300)
    nas = out["nas"]["judge_free"]
    assert nas["n"] == 191
    assert nas["counts"] == {"aware": 38, "neutral": 1 + 42, "unaware": 110}
    assert nas["value"] == pytest.approx((38 - 110) / 191)
    assert round(nas["value"], 3) == -0.377
    assert out["six_outcomes"] == {"searched": {"n": 39, "correct": 38, "wrong": 1, "abstain": 0},
                                   "not_searched": {"n": 152, "correct": 42, "wrong": 20, "abstain": 90}}
    assert out["search_rate"]["OK"]["k"] == 39 and out["search_rate"]["OK"]["n"] == 191


def test_mistral_judged_nas_with_25_misaligned_is_about_minus_0_51():
    """x misaligned-correct unsearched answers count unaware: (38 - 110 - x)/191 = -0.51 at x = 25."""
    responses = mistral_with_search()
    unsearched_correct = [i for i, r in enumerate(responses) if r.correct and not r.searched]
    misaligned = set(unsearched_correct[:25])
    judged = [Response(**{**r.__dict__, "aligned": i not in misaligned}) if r.correct else r
              for i, r in enumerate(responses)]
    out = condition_metrics(judged, n_resamples=300)
    assert out["nas"]["judged"]["counts"]["unaware"] == 110 + 25
    assert out["nas"]["judged"]["value"] == pytest.approx((38 - 110 - 25) / 191)
    assert round(out["nas"]["judged"]["value"], 2) == -0.51


# --- the NAS table, cell by cell (hand-made responses) -----------------------------------------
@pytest.mark.parametrize("response, judge_free, judged", [
    # with search
    (R("OK", "search", 1, searched=True, aligned=True), 1, 1),      # searched, correct: aware
    (R("OK", "search", 1, searched=True, aligned=False), 1, 1),     # aware regardless of the reason
    (R("OK", "search", 2, searched=True), 0, 0),                    # searched, wrong: neutral
    (R("OK", "search", 5, searched=True), 0, 0),                    # searched, abstain: neutral
    (R("OK", "search", 1, aligned=True), 0, 0),                     # not searched, correct, aligned: neutral
    (R("OK", "search", 1, aligned=False), 0, -1),                   # correct but misaligned: unaware (judged)
    (R("OK", "search", 5), -1, -1),                                 # not searched, abstain: unaware
    (R("OK", "search", 3), -1, -1),                                 # not searched, wrong: unaware
    # without search
    (R("OK", "none", 5), 1, 1),                                     # abstain: aware
    (R("OK", "none", 1, aligned=True), 1, 1),                       # correct, aligned: aware
    (R("OK", "none", 1, aligned=False), 1, 0),                      # correct, misaligned: neutral (judged)
    (R("OK", "none", 4), -1, -1),                                   # wrong: unaware
])
def test_nas_label_table(response, judge_free, judged):
    assert nas_label(response, judged=False) == judge_free
    assert nas_label(response, judged=True) == judged


@pytest.mark.parametrize("response, judge_free, judged", [
    # with search
    (R("IK", "search", 1, aligned=True), 1, 1),                     # correct, aligned, no search: confident
    (R("IK", "search", 1, aligned=False), 1, 0),                    # correct, misaligned: neutral (judged)
    (R("IK", "search", 1, searched=True, aligned=True), -1, -1),    # searched, even correct: wasteful
    (R("IK", "search", 2, searched=True), -1, -1),                  # searched, wrong: wasteful
    (R("IK", "search", 5), -1, -1),                                 # abstained: wasteful
    (R("IK", "search", 3), 0, 0),                                   # wrong, no search: neutral
    # without search
    (R("IK", "none", 1, aligned=True), 1, 1),                       # correct, aligned: confident
    (R("IK", "none", 1, aligned=False), 1, -1),                     # correct, misaligned: wasteful (judged)
    (R("IK", "none", 2), -1, -1),                                   # wrong: wasteful
    (R("IK", "none", 5), -1, -1),                                   # abstained: wasteful
])
def test_kis_label_table(response, judge_free, judged):
    assert kis_label(response, judged=False) == judge_free
    assert kis_label(response, judged=True) == judged


def test_labels_refuse_the_other_kind():
    with pytest.raises(ValueError):
        nas_label(R("IK", "search", 1))
    with pytest.raises(ValueError):
        kis_label(R("OK", "search", 1))


def test_rates_denominators_and_cues_on_a_small_hand_case():
    rs = [R("OK", "search", 1, searched=True, cued=True, item="a"),
          R("OK", "search", 5, cued=False, item="b"),
          R("OK", "search", 2, cued=False, item="c"),
          R("IK", "search", 1, aligned=True, item="d"),
          R("IK", "search", 1, searched=True, aligned=True, item="e"),
          R("IK", "search", 5, item="f")]
    out = condition_metrics(rs, excluded={"unparseable": 2}, n_resamples=200)
    assert out["n_valid"] == 6 and out["excluded"] == {"unparseable": 2}
    assert out["accuracy"]["all"]["k"] == 3 and out["accuracy"]["all"]["n"] == 6
    assert (out["accuracy_answered"]["OK"]["k"], out["accuracy_answered"]["OK"]["n"]) == (1, 2)
    assert (out["abstention_rate"]["IK"]["k"], out["abstention_rate"]["IK"]["n"]) == (1, 3)
    assert (out["search_rate"]["IK"]["k"], out["search_rate"]["IK"]["n"]) == (1, 3)
    assert out["nas"]["judge_free"]["value"] == pytest.approx((1 - 2) / 3)
    assert out["kis"]["judge_free"]["value"] == pytest.approx((1 - 2) / 3)
    assert out["temporal_cues"]["cued"]["nas"]["judge_free"]["value"] == 1.0
    assert out["temporal_cues"]["uncued"]["nas"]["judge_free"]["value"] == -1.0
    assert out["temporal_cues"]["uncued"]["search_rate"]["k"] == 0


def test_bootstrap_ci_brackets_the_estimate_and_is_seeded():
    rs = mistral_with_search()
    a = condition_metrics(rs, n_resamples=3000, seed=1)["nas"]["judge_free"]
    b = condition_metrics(rs, n_resamples=3000, seed=1)["nas"]["judge_free"]
    assert a["ci"] == b["ci"]
    lo, hi = a["ci"]
    assert lo < a["value"] < hi
    # the paper's typical half-width with n ~ 200 is ~0.07-0.12
    assert 0.05 < (hi - lo) / 2 < 0.15


def test_regimes():
    assert regime(0.7, 0.8) == "ideal"
    assert regime(0.9, -0.9) == "over-searcher"
    assert regime(-0.5, 0.8) == "under-searcher"
    assert regime(-0.2, -0.3) == "confused"
    assert regime(None, 0.3) is None
