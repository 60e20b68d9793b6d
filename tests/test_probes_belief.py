"""Belief probe: parsing, AUROC/Brier/ECE10 through the probe's summary on hand-computed cases,
valid supports n_A vs n_C, seeded bootstrap, and a read-only elicitation through a scripted model."""

import asyncio

import pytest

from harnessx.envs.toy import ToyEnv, ToySuite
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.models.providers import register_script
from harnessx.probes.belief import BeliefReport, probe_beliefs
from harnessx.probes.belief_metrics import belief_summary, reliability
from harnessx.probes.belief_parse import parse_probability


def report(task: str, p: float | None, feasible: bool, source: str | None = None) -> BeliefReport:
    return BeliefReport(harness_hash="h", task_id=task, seed=0, source_id=source or task, split="heldout",
                        feasible=feasible, family=None if feasible else "infeasible", p=p,
                        invalid_reason=None if p is not None else "no P(feasible) value found")


@pytest.mark.parametrize("text,expected", [
    ('{"p_feasible": 0.25}', 0.25), ("P(feasible) = 0.7\nlooks fine", 0.7), ("p(Feasible): 85%", 0.85),
    ('Answer: {"probability": "40%"}', 0.4), ("P(feasible) = 1", 1.0)])
def test_parse_accepts_json_and_labelled_values(text, expected):
    assert parse_probability(text) == (pytest.approx(expected), None)


@pytest.mark.parametrize("text", ["I think it is feasible.", "P(feasible) = 1.7", '{"p_feasible": true}',
                                  '{"p_feasible": "high"}', ""])
def test_parse_failures_are_invalid_with_a_reason(text):
    p, why = parse_probability(text)
    assert p is None and why


def test_auroc_with_ties_and_brier_hand_computed():
    # feasible {0.9, 0.5} vs blocked {0.5, 0.1}: pairs 1 + 1 + ½ (tie) + 1 = 3.5 of 4
    reports = [report("a", 0.9, True), report("b", 0.5, True), report("c", 0.5, False), report("d", 0.1, False)]
    h = belief_summary({"H": reports}, n_resamples=200)["harnesses"]["H"]
    assert h["auroc"]["value"] == pytest.approx(0.875)
    assert h["brier"]["value"] == pytest.approx((0.01 + 0.25 + 0.25 + 0.01) / 4)
    assert h["n_A"] == h["n_C"] == 4


def test_ece10_bin_edges_one_in_last_bin_and_empty_bins():
    # bins: 9 <- {1.0, 0.95} (y 1, 0); 1 <- {0.1, 0.15} (y 0, 0); 3 <- {0.3} (y 1); the rest empty
    reports = [report("a", 1.0, True), report("b", 0.95, False), report("c", 0.1, False), report("d", 0.15, False),
               report("e", 0.3, True)]
    h = belief_summary({"H": reports}, n_resamples=200)["harnesses"]["H"]
    expected = 2 / 5 * abs(0.5 - 0.975) + 2 / 5 * 0.125 + 1 / 5 * 0.7
    assert h["ece10"]["value"] == pytest.approx(expected)
    table = reliability(reports)
    assert [b["n"] for b in table] == [0, 2, 0, 1, 0, 0, 0, 0, 0, 2]
    assert table[9]["bin"] == [0.9, 1.0] and table[9]["mean_p"] == pytest.approx(0.975)
    assert table[0]["mean_p"] is None and table[0]["feasible_share"] is None


def test_valid_supports_n_a_per_harness_and_n_c_on_the_intersection():
    ps = [0.9, 0.8, 0.7, 0.3, 0.2, 0.1]
    labels = [True, True, True, False, False, False]
    a = [report(f"t{i}", None if i == 0 else p, y) for i, (p, y) in enumerate(zip(ps, labels))]
    b = [report(f"t{i}", None if i == 5 else p, y) for i, (p, y) in enumerate(zip(ps, labels))]
    out = belief_summary({"A": a, "B": b}, n_resamples=200)
    ha, hb = out["harnesses"]["A"], out["harnesses"]["B"]
    assert (ha["n_A"], ha["n_C"], ha["n_invalid"]) == (5, 4, 1)
    assert (hb["n_A"], hb["n_C"]) == (5, 4)
    assert ha["auroc"]["n"] == 5 and ha["brier"]["n"] == 4 and ha["ece10"]["n"] == 4
    # Brier on the 4 common items t1..t4 is the same for both harnesses: their reports agree there
    assert ha["brier"]["value"] == pytest.approx(hb["brier"]["value"])
    diff = out["differences"][0]
    assert (diff["first"], diff["second"], diff["n"]) == ("B", "A", 4)
    assert diff["brier"]["value"] == pytest.approx(0.0) and diff["brier"]["ci"] == [0.0, 0.0]


def test_bootstrap_over_source_pairs_is_reproducible_with_a_seed():
    reports = []
    for i in range(12):
        reports.append(report(f"f{i}", 0.5 + 0.04 * i, True, source=f"s{i}"))
        reports.append(report(f"b{i}", 0.1 + 0.05 * i, False, source=f"s{i}"))
    first = belief_summary({"H": reports}, n_resamples=500, seed=3)["harnesses"]["H"]
    again = belief_summary({"H": reports}, n_resamples=500, seed=3)["harnesses"]["H"]
    other = belief_summary({"H": reports}, n_resamples=500, seed=4)["harnesses"]["H"]
    assert first["auroc"] == again["auroc"] and first["ece10"] == again["ece10"]
    assert other["auroc"]["ci"] != first["auroc"]["ci"]
    lo, hi = first["auroc"]["ci"]
    assert lo <= first["auroc"]["value"] <= hi


class RecordingSuite(ToySuite):
    """Keeps every environment it makes, to check that the probe changed nothing."""

    def __init__(self):
        super().__init__(n_sources=2)
        self.envs: list[ToyEnv] = []

    def make_env(self) -> ToyEnv:
        env = _NoExecuteEnv()
        self.envs.append(env)
        return env


class _NoExecuteEnv(ToyEnv):
    async def execute(self, call):
        raise AssertionError("the belief probe must not execute tools")


SEEN: list[dict] = []


def _belief_script(messages, tools, metadata):
    SEEN.append({"tools": tools, "role": metadata["harnessx"]["role"]})
    sim = metadata["harnessx"]["sim"]
    if sim["task_id"].endswith("missing"):
        return {"content": "no idea", "usage": {"prompt_tokens": 1, "completion_tokens": 1}}
    p = 0.8 if sim["feasible"] else 0.2
    return {"content": f"P(feasible) = {p}", "usage": {"prompt_tokens": 1, "completion_tokens": 1},
            "tool_calls": [{"name": "put", "arguments": {"key": "k0", "value": "x"}}]}


def test_probe_is_read_only_and_records_parse_failures_as_invalid():
    suite = RecordingSuite()
    model = ModelClient(register_script("belief-probe", _belief_script))
    reports = asyncio.run(probe_beliefs(suite, model, load_preset("A1"), suite.tasks(), [0]))
    assert len(reports) == len(suite.tasks()) == 6
    assert {s["role"] for s in SEEN} == {"belief"} and all(not s["tools"] for s in SEEN)
    invalid = [r for r in reports if not r.valid]
    assert {r.task_id for r in invalid} == {"toy-0-missing", "toy-1-missing"}
    assert all(r.invalid_reason for r in invalid)
    assert all(env.task is None for env in suite.envs)  # reset, asked, cleaned up; nothing executed
