"""Contracts every registered acceptance rule and proposer must meet (the lists are read from their
registries, `search/rules.py` ACCEPTANCE and `search/proposers` PROPOSERS, so a new one is tested here
without editing this file):

- a rule never accepts a copy of the incumbent: a harness with a different hash and the very same
  outcome on every task; over several rounds and several outcome patterns;
- a rule reads and calls only what the arena declares for rules (`RuleArena`), never probing for more;
- a proposer is a pure function of its context (the same seed and history, the same proposals) and
  never proposes the incumbent itself.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "faults"))

from fault_server import FaultServer, completion  # noqa: E402
from test_search_acceptance import FakeArena, evaluation, make_tasks  # noqa: E402
from test_search_space import context  # noqa: E402

from harnessx.search.arena import RULE_ARENA  # noqa: E402
from harnessx.search.proposers import PROPOSERS, make_proposer  # noqa: E402
from harnessx.search.rules import ACCEPTANCE, make_acceptance, rule_class, takes_alpha  # noqa: E402

N = 30  # tasks per stratum
ROUNDS = 4


class DeclaredOnly:
    """An arena that lets a rule use only RuleArena's members, and records every name it asks for
    (a `hasattr` probe for anything else is recorded too, then refused)."""

    def __init__(self, inner: FakeArena):
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "asked", set())

    def __getattr__(self, name: str):
        self.asked.add(name)
        if name not in RULE_ARENA:
            raise AttributeError(f"{name!r} is not declared on RuleArena")
        return getattr(self._inner, name)


def outcomes(seed: int) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    rate = rng.choice([0.2, 0.5, 0.8])
    return [int(rng.random() < rate) for _ in range(N)], [int(rng.random() < rate) for _ in range(N)]


@pytest.mark.parametrize("name", sorted(ACCEPTANCE))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_copy_of_the_incumbent_is_never_accepted_and_only_declared_members_are_used(name, seed):
    tasks = make_tasks(N)
    blocked, feasible = outcomes(seed)
    incumbent = evaluation("incumbent", tasks, blocked, feasible)
    copies = {f"copy{r}-{s}": evaluation(f"copy{r}-{s}", tasks, blocked, feasible)
              for r in range(1, ROUNDS + 1) for s in range(2)}
    inner = FakeArena({e.harness.hash: e for e in (incumbent, *copies.values())})
    arena = DeclaredOnly(inner)
    rule = make_acceptance(name, **({"alpha": 0.05} if takes_alpha(name) else {}))
    working = incumbent.harness
    for round_no in range(1, ROUNDS + 1):
        inner.round = round_no
        asyncio.run(rule.incumbent_evaluation(working, arena))
        proposals = [copies[f"copy{round_no}-{s}"].harness for s in range(2)]
        verdicts = asyncio.run(rule.judge(working, proposals, arena))
        assert len(verdicts) == len(proposals)
        assert not any(v.accepted for v in verdicts), f"{name} accepted a copy of the incumbent: {verdicts}"
    assert arena.asked <= set(RULE_ARENA), f"{name} used undeclared arena members {arena.asked - set(RULE_ARENA)}"


@pytest.mark.parametrize("name", sorted(ACCEPTANCE))
def test_a_rule_never_probes_the_arena_for_a_member(name):
    """`hasattr(arena, ...)` / `getattr(arena, ..., default)` would hide an undeclared member behind a
    silent fallback: every module of the rule's class hierarchy calls declared members only."""
    modules = {inspect.getmodule(cls) for cls in rule_class(name).__mro__} - {None, inspect.getmodule(object)}
    probes = []
    for module in modules:
        path = inspect.getsourcefile(module)
        if path is None or "harnessx" not in Path(path).parts:
            continue
        for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("hasattr", "getattr")
                    and node.args and "arena" in ast.unparse(node.args[0])):
                probes.append(f"{Path(path).name}:{node.lineno}: {ast.unparse(node)}")
    assert not probes, f"{name} probes the arena: {probes}"


def meta_reply(new_text: str) -> tuple:
    edit = {"component": "abandon_protocol", "new_text": new_text, "hypothesis": "the agent proceeds on blocked tasks"}
    return 200, {}, completion(f"[[ ## reasoning ## ]]\nit proceeds\n\n[[ ## edit ## ]]\n{json.dumps(edit)}\n\n"
                               "[[ ## completed ## ]]")


def proposals_of(name: str, replies: list[tuple], ctx, k: int = 2) -> tuple[list, list[str]]:
    """One round of a proposer built by its registry name; the meta-model is a loopback endpoint."""
    with FaultServer(replies * k) as server:
        proposer = make_proposer(name, meta_model="openai/loopback", api_base=server.url)
        if hasattr(proposer, "lm"):  # a DSPy proposer: every call reaches the endpoint, none from its cache
            proposer.lm.cache, proposer.lm.num_retries = False, 0
        made = proposer.propose(ctx, k)
    return made, list(proposer.dropped)


OFFLINE = {"gepa": "drives its own loop of rollouts and reflections (tests/test_gepa_scores.py)"}


@pytest.mark.parametrize("name", PROPOSERS)
def test_a_proposer_is_deterministic_given_its_context_and_never_proposes_the_incumbent(name):
    if name in OFFLINE:
        pytest.skip(f"{name}: {OFFLINE[name]}")
    ctx = context({"proceeded": 5, "false_abstention": 3})
    current = ctx.incumbent.components["abandon_protocol"]
    first, _ = proposals_of(name, [meta_reply("If the request cannot be done, say why and stop.")], ctx)
    again, _ = proposals_of(name, [meta_reply("If the request cannot be done, say why and stop.")], ctx)
    assert first, f"{name} proposed nothing"
    assert [(p.harness.hash, p.edit) for p in first] == [(p.harness.hash, p.edit) for p in again]
    assert ctx.incumbent.hash not in {p.harness.hash for p in first}
    # a draft that changes nothing is dropped with its reason, never proposed
    same, dropped = proposals_of(name, [meta_reply(current)], ctx)
    assert ctx.incumbent.hash not in {p.harness.hash for p in same}
    assert same or dropped
