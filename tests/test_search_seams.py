"""The search's seams: every registered acceptance rule derives from `AcceptanceRule` and every
proposer from `Proposer`, which declare each hook the search loop calls with a default, so a rule
that defines only `judge` (a proposer only `propose`) runs in the loop; anything else is refused."""

from __future__ import annotations

import asyncio
import inspect
import json
import random

import pytest

from harnessx.search import Search, SearchConfig
from harnessx.search.acceptance import AcceptanceRule, Verdict
from harnessx.search.proposers import PROPOSERS, Proposer, make_proposer
from harnessx.search.rules import ACCEPTANCE, make_acceptance, takes_alpha
from test_search_acceptance import FakeArena, evaluation, make_tasks

HOOKS = ("judge", "options", "restore", "incumbent_evaluation", "looks", "round_rollouts")  # what harnessx/search/loop.py calls


@pytest.mark.parametrize("name", sorted(ACCEPTANCE))
def test_every_registered_rule_fills_the_seam(name):
    rule = make_acceptance(name, **({"alpha": 0.05} if takes_alpha(name) else {}))
    assert isinstance(rule, AcceptanceRule) and rule.name == ("explore" if name == "default" else name)  # an alias
    for hook in HOOKS:
        assert callable(getattr(rule, hook)), hook
        assert hook in vars(AcceptanceRule), f"{hook} is not declared on the base"


@pytest.mark.parametrize("name", sorted(ACCEPTANCE))
def test_every_rule_is_rebuilt_from_the_settings_it_records(name):
    """config.json records `options()`, and a resume builds the rule again from them: they must be JSON
    and give back the same rule settings, each one settable by --accept-option."""
    base = {"alpha": 0.05} if takes_alpha(name) else {}
    recorded = json.loads(json.dumps(make_acceptance(name, **base).options()))
    settings = {k: v for k, v in recorded.items() if k not in base}  # alpha is --alpha's
    assert make_acceptance(name, settings, **base).options() == recorded
    for key, value in settings.items():  # one at a time, as a user gives them
        assert make_acceptance(name, {key: value}, **base).options()[key] == value


def test_the_base_declares_judge_abstract_and_defaults_the_other_hooks():
    assert AcceptanceRule.__abstractmethods__ == frozenset({"judge"})

    class OnlyJudge(AcceptanceRule):
        name = "only-judge"

        async def judge(self, incumbent, proposals, arena):
            inc = await arena.evaluate(incumbent)
            return [Verdict(inc, "full") for _ in proposals]

    tasks = make_tasks(10)
    inc = evaluation("inc", tasks, [1] * 10, [0] * 10)
    arena = FakeArena({inc.harness.hash: inc})
    rule = OnlyJudge()
    assert rule.restore([{"round": 0, "hash": "x"}]) is None
    seen = asyncio.run(rule.incumbent_evaluation(inc.harness, arena))
    assert seen.scorecard.joint.n == len(arena.tasks)  # the full split
    assert inspect.iscoroutinefunction(AcceptanceRule.incumbent_evaluation)
    assert rule.looks(3) == 3 and rule.round_rollouts(20, 3) == 60  # every look on every task
    assert rule.options() == {}  # a rule without settings records none


@pytest.mark.parametrize("name", sorted(ACCEPTANCE))
@pytest.mark.parametrize("pairs", [6, 40])
def test_no_round_of_any_rule_pays_more_than_its_round_rollouts(name, pairs):
    """The contract a budget-driven search relies on (it starts a round only when what is left covers
    `round_rollouts`): over random rounds -- looks that gain, tie or lose by random amounts on random
    tasks -- the proposals' rollouts never exceed it. The incumbent's are not counted: R0 and every
    moved-to harness already have the whole split."""
    check_round_rollouts(lambda: make_acceptance(name, **({"alpha": 0.05} if takes_alpha(name) else {})), pairs)


@pytest.mark.parametrize("settings", [{"tie_tasks": 4}, {"tie_tasks": 12}, {"design": "promote", "tie_tasks": 6},
                                      {"gate": 2, "tie_tasks": 2, "screen": 8}, {"gate": 0}, {"confirm": "unseen"}])
@pytest.mark.parametrize("pairs", [6, 40])
def test_no_round_of_the_default_with_its_settings_pays_more_than_its_round_rollouts(settings, pairs):
    """The same contract over the default rule's settings that change what a round pays (the gate's
    tie-break pays for more of the screen's tasks)."""
    check_round_rollouts(lambda: make_acceptance("default", settings), pairs)


def check_round_rollouts(make, pairs: int) -> None:
    tasks = make_tasks(pairs)
    for seed in range(15):
        rng = random.Random(seed)
        rule = make()
        name = rule.name
        k = rng.choice([1, 2, 3, 5])
        inc_b, inc_f = ([int(rng.random() < 0.5) for _ in range(pairs)] for _ in range(2))
        looks = [evaluation(f"look{i}", tasks, *([int(rng.random() < p) for _ in range(pairs)]
                                                 for p in (rng.uniform(0.2, 0.9), rng.uniform(0.2, 0.9))))
                 for i in range(rule.looks(k))]
        inc = evaluation("inc", tasks, inc_b, inc_f)
        arena = FakeArena({e.harness.hash: e for e in (inc, *looks)})
        asyncio.run(rule.judge(inc.harness, [e.harness for e in looks], arena))
        paid = sum(len(ids) for h, ids in arena.paid_ids.items() if h != inc.harness.hash)
        assert paid <= rule.round_rollouts(len(arena.tasks), k), (name, seed, k, paid)
    # a budget-driven search narrows a round to the most proposals the rest pays for: that search
    # needs the figure non-decreasing in the proposals, and a round of one to cost something
    figures = [rule.round_rollouts(2 * pairs, k) for k in range(1, 9)]
    assert figures == sorted(figures) and figures[0] > 0, (name, figures)


class DuckRule:
    name = "duck"

    async def judge(self, incumbent, proposals, arena):
        return []


class DuckProposer:
    name = "duck"

    def propose(self, ctx, k):
        return []


def test_an_object_outside_the_seam_is_refused(tmp_path):
    with pytest.raises(TypeError, match="AcceptanceRule"):
        make_acceptance(DuckRule())
    config = SearchConfig.of(env="toy", runs_dir=str(tmp_path), tracking_uri=None)
    with pytest.raises(TypeError, match="AcceptanceRule"):
        Search(config, acceptance=DuckRule())
    with pytest.raises(TypeError, match="Proposer"):
        Search(config, proposer=DuckProposer())


@pytest.mark.parametrize("name", PROPOSERS)
def test_every_proposer_fills_the_seam(name):
    proposer = make_proposer(name, meta_model="openai/unused")
    assert isinstance(proposer, Proposer) and proposer.name == name
    assert list(proposer.dropped) == []  # nothing refused before the first round
    assert Proposer.__abstractmethods__ == frozenset({"propose"})
