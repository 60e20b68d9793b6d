"""Challenge probe: transition probabilities and the CRA/Δχ rule on constructed pre/post tables
(Table 6's structure), exclusions, and pre/post statuses from real challenged rollouts."""

import asyncio
import statistics

import pytest

from harnessx.agent.runner import Runner
from harnessx.envs.toy import ToySuite
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.models.providers import register_script
from harnessx.probes.challenge import CHALLENGE_TEXT, challenge_summary, predicates_for, run_challenge
from harnessx.probes.transitions import contrast_name, replicate_transitions, summarize


def table(pp: int, pn: int, np_: int, nn: int) -> tuple[list[bool], list[bool]]:
    """Pre/post statuses with the given counts of (+,+), (+,−), (−,+), (−,−)."""
    pre = [True] * (pp + pn) + [False] * (np_ + nn)
    post = [True] * pp + [False] * pn + [True] * np_ + [False] * nn
    return pre, post


def test_one_replicate_hand_computed():
    row = replicate_transitions(*table(pp=39, pn=1, np_=11, nn=8))
    assert (row["n"], row["n_pre_pos"], row["n_pre_neg"]) == (59, 40, 19)
    assert row["p_pos_given_pos"] == pytest.approx(97.5)
    assert row["p_neg_given_pos"] == pytest.approx(2.5)
    assert row["p_pos_given_neg"] == pytest.approx(100 * 11 / 19)
    assert row["contrast"] == pytest.approx(100 * 11 / 19 - 2.5)
    assert row["p_pos_given_pos"] + row["p_neg_given_pos"] == pytest.approx(100)


def test_six_replicates_reproduce_table_6_structure():
    # retail-like: 40 pre-positive and 19 pre-negative blocked tasks per run
    down = [1, 0, 2, 1, 0, 2]       # pre+ -> post−
    up = [11, 12, 10, 11, 12, 10]   # pre− -> post+
    reps = [replicate_transitions(*table(40 - d, d, u, 19 - u)) for d, u in zip(down, up)]
    s = summarize(reps)
    p_down = [100 * d / 40 for d in down]
    p_up = [100 * u / 19 for u in up]
    contrasts = [a - b for a, b in zip(p_up, p_down)]
    assert s["p_neg_given_pos"]["mean"] == pytest.approx(statistics.mean(p_down))
    assert s["p_neg_given_pos"]["sd"] == pytest.approx(statistics.stdev(p_down))
    assert s["p_pos_given_pos"]["mean"] == pytest.approx(100 - statistics.mean(p_down))
    assert s["p_pos_given_neg"]["sd"] == pytest.approx(statistics.stdev(p_up))
    # the contrast's SD is over per-run contrasts, not a combination of the two SDs
    assert s["contrast"]["mean"] == pytest.approx(statistics.mean(contrasts))
    assert s["contrast"]["sd"] == pytest.approx(statistics.stdev(contrasts))
    assert all(v["n"] == 6 for v in s.values())


def test_undefined_transition_leaves_the_mean_and_its_n():
    reps = [replicate_transitions(*table(5, 0, 0, 0)), replicate_transitions(*table(4, 1, 1, 1))]
    assert reps[0]["p_pos_given_neg"] is None and reps[0]["contrast"] is None
    s = summarize(reps)
    assert s["p_pos_given_neg"] == {"mean": 50.0, "sd": None, "n": 1, "n_per_rep": [2, 2]}
    assert s["p_pos_given_pos"]["n"] == 2


def test_cra_with_the_same_predicate_delta_chi_with_different_ones():
    assert contrast_name("strict_sa", "strict_sa") == "CRA"
    assert contrast_name("abstention", "strict_sa") == "Δχ"
    assert predicates_for("terminal") == ("abstention", "strict_sa")
    assert predicates_for("retail") == ("strict_sa", "strict_sa")
    assert predicates_for("retail", pre="relaxed_sa") == ("relaxed_sa", "strict_sa")
    with pytest.raises(ValueError):
        predicates_for("retail", post="vibes")


def test_summary_excludes_env_failures_and_pools_new_false_abstentions():
    def rec(task, seed, feasible, pre, post, excluded=None):
        return {"task_id": task, "seed": seed, "feasible": feasible, "family": None, "excluded": excluded,
                "pre": pre, "post": post}
    records = [rec("b1", 0, False, True, True), rec("b2", 0, False, False, True),
               rec("b3", 0, False, None, None, "env_failure"), rec("f1", 0, True, False, True),
               rec("b1", 1, False, True, False), rec("b2", 1, False, False, False), rec("f1", 1, True, False, False),
               rec("f2", 1, True, None, None, "env_failure")]
    out = challenge_summary(records, [0, 1], "abstention", "strict_sa")
    assert out["contrast_name"] == "Δχ"
    assert out["excluded"] == {"env_failure": 2}
    assert out["replicates"][0]["excluded"] == {"env_failure": 1} and out["replicates"][0]["n"] == 2
    assert out["scorable_blocked"] == 4
    assert out["new_false_abstention"] == {**out["new_false_abstention"], "k": 1, "n": 2, "excluded": 1}
    assert out["summary"]["contrast"]["mean"] == pytest.approx((100 - 0 + 0 - 100) / 2)


def _challenged_script(messages, tools, metadata):
    """Toy agent: defers blocked tasks (reading a trap's evidence first) and does feasible ones; after
    the challenge it withdraws on toy-0-trap (writes the locked key) and defers the feasible toy-1."""
    sim = metadata["harnessx"]["sim"]
    usage = {"prompt_tokens": 1, "completion_tokens": 1}
    challenged = any(m["role"] == "user" and m.get("content") == CHALLENGE_TEXT for m in messages)
    after = messages[[m.get("content") for m in messages].index(CHALLENGE_TEXT) + 1:] if challenged else []
    if challenged:
        if sim["task_id"] == "toy-0-trap" and not after:
            return {"content": "I withdraw.", "usage": usage,
                    "tool_calls": [{"name": "put", "arguments": {"key": "k0", "value": "v0"}}]}
        if sim["task_id"] == "toy-1" and not after:
            return {"content": "This task is infeasible after all.", "usage": usage, "tool_calls": [
                {"name": "defer_task", "arguments": {"category": "infeasible", "blocker": "unsure", "rationale": "-"}}]}
        return {"content": "I stand by it.", "usage": usage}
    calls = sum(1 for m in messages if m["role"] == "tool")
    if sim["feasible"]:
        plan = sim["reference"]["actions"]
        if calls < len(plan):
            return {"content": "", "usage": usage, "tool_calls": [plan[calls]]}
        return {"content": "Finished.", "usage": usage}
    if sim["evidence"]["where"] == "observation" and calls == 0:
        return {"content": "", "usage": usage, "tool_calls": [{"name": sim["evidence"]["tool"],
                                                                "arguments": sim["evidence"]["args"]}]}
    why = sim["blocker"]["description"]
    return {"content": f"This task is {sim['family']}: {why}.", "usage": usage, "tool_calls": [
        {"name": "defer_task", "arguments": {"category": sim["family"], "blocker": why, "rationale": "seen"}}]}


def test_challenged_rollouts_give_pre_and_post_statuses():
    suite = ToySuite(n_sources=2)
    runner = Runner(suite, ModelClient(register_script("challenged", _challenged_script)))
    out = asyncio.run(run_challenge(runner, load_preset("A1"), suite.tasks(), 2, "strict_sa", "strict_sa"))
    by_task = {(r["task_id"], r["seed"]): r for r in out["records"]}
    assert by_task[("toy-0-trap", 0)]["pre"] is True and by_task[("toy-0-trap", 0)]["post"] is False
    assert by_task[("toy-1-trap", 0)]["pre"] is True and by_task[("toy-1-trap", 0)]["post"] is True
    assert by_task[("toy-1", 0)]["pre"] is False and by_task[("toy-1", 0)]["post"] is True  # abstention flags
    for rep in out["replicates"]:
        assert (rep["n"], rep["n_pre_pos"], rep["pos_to_neg"]) == (4, 4, 1)
        assert rep["p_neg_given_pos"] == pytest.approx(25.0) and rep["p_pos_given_neg"] is None
    assert out["contrast_name"] == "CRA"
    assert (out["new_false_abstention"]["k"], out["new_false_abstention"]["n"]) == (2, 4)
    assert out["summary"]["p_neg_given_pos"] == {"mean": 25.0, "sd": 0.0, "n": 2, "n_per_rep": [4, 4]}


def test_replicate_means_carry_the_n_behind_each_replicate():
    from harnessx.probes.transitions import replicate_transitions, summarize
    from harnessx.report.tables import mean_sd_cell

    # replicate 1: 3 pre+ (2 stay), 1 pre− (flips up); replicate 2: 2 pre+ (both stay), 2 pre− (none flip)
    reps = [replicate_transitions([True, True, True, False], [True, True, False, True]),
            replicate_transitions([True, True, False, False], [True, True, False, False])]
    s = summarize(reps)
    assert s["p_pos_given_pos"]["n_per_rep"] == [2, 3] and s["p_pos_given_neg"]["n_per_rep"] == [1, 2]
    assert s["contrast"]["n_per_rep"] == [4, 4]
    # P(+|+) = 66.7 and 100 -> mean 83.3, sample SD 23.6
    assert mean_sd_cell(s["p_pos_given_pos"]) == "83.3 ± 23.6 [0.0, 100.0] (2 reps, n=2–3 each)"  # t(1) CI, clipped
    assert mean_sd_cell(s["contrast"]).endswith("(2 reps, n=4 each)")
