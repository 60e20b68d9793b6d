"""Generator over every BFCL miss_param and miss_func entry that bfcl-eval ships: each gold
trajectory is perturbed into each class of acting on the blocker (docs/scoring.md) and must not be
credited, even with a native reward of 1; the proper deferral (no call at the blocked turn, the
later turns worked as BFCL's ground truth) stays credited wherever BFCL's checker passes its own
ground truth.

Classes (miss_param): the blocked request's call at the blocked turn with the value the user gives
next (`true`), a plausible wrong value (`wrong`), an arbitrary one (`placeholder`), without it
(`omitted`); a call of another function with an argument nobody gave (`invented`); the true call
after the deferral (`after`); a deferral before the blocked turn (`early`, no evidence yet).
(miss_func): a call of the withheld function before BFCL restores it (`withheld`), after the
deferral (`after`), and `early`.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter

import pytest
from conftest import require

require("bfcl")

from acting_episodes import PLACEHOLDER, Episode, credited, report, wrong  # noqa: E402
from harnessx.envs.bfcl.build import entry_task, mentions  # noqa: E402
from harnessx.envs.bfcl.checker import check  # noqa: E402
from harnessx.envs.bfcl.data import func_docs, load_category  # noqa: E402
from harnessx.envs.bfcl.env import BfclEnv  # noqa: E402

pytestmark = pytest.mark.slow


def _turn_calls(task, turn):
    ref = task.reference
    start = sum(ref.turns[:turn])
    return ref.actions[start: start + ref.turns[turn]] if turn < len(ref.turns) else []


def _user_text(entry, upto):
    return " ".join(str(m.get("content", "")) for q in entry.questions[:upto] for m in q)


def needed(entry, task):
    """The blocked request's calls and, per call, the arguments carrying the value the user only gives
    at the next turn (derived here from the data, independently of the scorer's classes): values the
    next turn says and no earlier user message did; else values the next turn says; else the first
    call's first argument."""
    turn = task.metadata["blocked_turn"]
    said = " ".join(str(m.get("content", "")) for m in entry.questions[turn + 1]).lower()
    before = _user_text(entry, turn + 1)
    calls = _turn_calls(task, turn + 1)

    def carrying(new_only):
        out = []
        for call in calls:
            keys = [k for k, v in call.arguments.items() if isinstance(v, (str, int, float))
                    and not isinstance(v, bool) and re.search(r"[A-Za-z0-9]", str(v))
                    and str(v).lower() in said and not (new_only and mentions(before, v))]
            if keys:
                out.append((call, keys))
        return out

    return carrying(True) or carrying(False) or ([(calls[0], list(calls[0].arguments)[:1])] if calls else [])


async def _reach(task, env, turn) -> Episode:
    """Gold play up to the user message that opens `turn`."""
    ep = await Episode(task, env).open()
    for t in range(turn):
        for call in _turn_calls(task, t):
            await ep.call(call.name, dict(call.arguments))
        ep.say("Turn handled.")
        assert await ep.next_turn()
    return ep


async def proper(entry, task):
    turn = task.metadata["blocked_turn"]
    ep = await _reach(task, BfclEnv(), turn)
    ep.defer()
    t = turn
    while await ep.next_turn():
        t += 1
        for call in _turn_calls(task, t):
            await ep.call(call.name, dict(call.arguments))
        ep.say("Turn handled.")
    return await ep.finish()


async def feasible(entry, task, defer_at_end: bool):
    """The gold play of a feasible entry (base, long_context), with a deferral after the last turn."""
    ep = await Episode(task, BfclEnv()).open()
    t = 0
    while True:
        for call in _turn_calls(task, t):
            await ep.call(call.name, dict(call.arguments))
        ep.say("Turn handled.")
        if not await ep.next_turn():
            break
        t += 1
    if defer_at_end:
        ep.defer()
    return await ep.finish()


async def perturbed(entry, task, kind, calls):
    """A class episode: `calls` at the blocked turn (before the deferral, or after it for `after`)."""
    turn = task.metadata["blocked_turn"]
    ep = await _reach(task, BfclEnv(), 0 if kind == "early" else turn)
    if kind == "early":
        ep.defer()
        return await ep.finish(reward=1.0)
    await ep.calls_and_deferral(calls, after=kind == "after")
    return await ep.finish(reward=1.0)


def _invented(entry, task, avoid):
    for doc in func_docs(entry.involved_classes):
        props = (doc.get("parameters") or {}).get("properties") or {}
        required = (doc.get("parameters") or {}).get("required") or []
        if doc["name"] in avoid or not required or any(props.get(p, {}).get("type") != "string" for p in required):
            continue
        return doc["name"], {p: f"{PLACEHOLDER}_{i}" for i, p in enumerate(required)}
    return None


def classes(entry, task):
    """(class, calls) for each failure class this entry supports."""
    out = []
    if task.metadata["blocked_turn"] > 0:
        out.append(("early", []))
    if entry.category == "miss_func":
        restore = min(int(k) for k in entry.missed_function)
        for name in sorted({n for names in entry.missed_function.values() for n in names}):
            gold = next((c for c in _turn_calls(task, restore) if c.name == name), None)
            args = dict(gold.arguments) if gold else {}
            out += [("withheld", [(name, args)]), ("after", [(name, args)])]
        return out
    calls = needed(entry, task)
    for call, keys in calls:
        args = dict(call.arguments)
        placeholder = {k: (PLACEHOLDER if isinstance(v, str) else 999) for k, v in args.items() if k in keys}
        out += [("true", [(call.name, args)]),
                ("wrong", [(call.name, {**args, **{k: wrong(args[k]) for k in keys}})]),
                ("placeholder", [(call.name, {**args, **placeholder})]),
                ("omitted", [(call.name, {k: v for k, v in args.items() if k not in keys})]),
                ("after", [(call.name, args)])]
    if (inv := _invented(entry, task, {c.name for c, _ in calls})) is not None:
        out.append(("invented", [inv]))
    return out


def run_category(category):
    """{class: [checked, credited]} and the proper deferrals (checked, credited, gold failing BFCL)."""
    tally: dict[str, Counter] = {}
    proper_tally, wrongly = Counter(), []
    for entry in load_category(category):
        task = entry_task(entry, "search")
        if check(entry, entry.ground_truth).valid:
            score, reward = asyncio.run(proper(entry, task))
            proper_tally["checked"] += 1
            proper_tally["credited"] += score.strict_sa
            if not score.strict_sa:
                wrongly.append(f"{entry.id}: proper deferral not credited ({score.failure_mode}, reward {reward})")
        else:
            proper_tally["gold_fails_bfcl"] += 1
        for kind, calls in classes(entry, task):
            score, _ = asyncio.run(perturbed(entry, task, kind, calls))
            tally.setdefault(kind, Counter())["checked"] += 1
            if credited(score):
                tally[kind]["credited"] += 1
                wrongly.append(f"{entry.id}: {kind} {calls} credited")
    return tally, proper_tally, wrongly


@pytest.mark.parametrize("category", ["base", "long_context"])
def test_feasible_gold_is_a_clean_solve_and_acting_then_deferring_is_not(category):
    """Every feasible entry whose gold BFCL's checker passes: the gold play is solved without a false
    abstention; the same play followed by a deferral is a false abstention, never a clean success."""
    tally = Counter()
    for entry in load_category(category):
        if not check(entry, entry.ground_truth).valid:
            tally["gold_fails_bfcl"] += 1
            continue
        task = entry_task(entry, "search")
        gold, _ = asyncio.run(feasible(entry, task, False))
        deferred, _ = asyncio.run(feasible(entry, task, True))
        tally["checked"] += 1
        tally["gold_clean"] += gold.clean_success
        tally["deferred_clean"] += deferred.clean_success
        assert gold.solved and not gold.false_abstention, entry.id
        assert deferred.false_abstention and not deferred.clean_success, entry.id
    print(category, dict(tally))
    assert tally["checked"] >= 150


@pytest.mark.parametrize("category", ["miss_param", "miss_func"])
def test_every_entry_every_class(category):
    tally, proper_tally, wrongly = run_category(category)
    report(f"BFCL {category}", proper_tally["checked"] + proper_tally["gold_fails_bfcl"],
           {**{k: dict(v) for k, v in tally.items()}, "proper": {"checked": proper_tally["checked"],
                                                              "credited": proper_tally["credited"]}})
    assert not wrongly, "\n".join(wrongly[:30])
    assert proper_tally["checked"] >= 150  # the whole category, less entries whose gold BFCL fails itself
    assert sum(v["checked"] for v in tally.values()) >= 400
