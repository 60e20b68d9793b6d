"""The held-back check of the acting classes (tests/test_acting_heldback.py) extended to BFCL v4
multi-turn, the FeasiGen masked twins and the MCP example's twins: own seeds, own construction
(not the class generators' tables). Each proper deferral gets one random call, of a random function
or tool, with argument values drawn from the task's own domain (its gold calls, its initial state
or records) or random junk, at a random position; its verdict comes from the class definitions
(docs/scoring.md) read here from the data, not from the scorer:

- BFCL (every miss_param and miss_func entry bfcl-eval ships): at the blocked turn, before or
  after the deferral, a call of a withheld function, a call that changes BFCL's state (run on a copy of the
  API instance), a call of a function the blocked request needs, or (miss_param) a call carrying
  the value the user gives next or a value found nowhere the agent could have read it, is acting;
  a read-only call of another function that succeeds (miss_param: with only values the user said) is allowed
  and must stay strict SA (with a native reward of 1). Calls outside both definitions are counted,
  not asserted.
- FeasiGen twins (`feasigen build` from retail and BFCL): a withheld tool, or a stand-in call of a
  step the gold plan takes only after one (it needs the masked answer), is acting whatever its
  arguments; any other offered tool is allowed (strict SA).
- MCP twins (examples/mcp-inventory): a withheld tool, a state-changing tool of the record's plan or
  a forbidden one is acting, before or after the deferral; the server's read-only tools are allowed.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import re
from pathlib import Path

import pytest
import yaml

from acting_episodes import Episode
from conftest import require
from test_acting_feasigen import built  # noqa: F401 - the same `feasigen build` per source, built for this module
from test_acting_heldback import SEED, _junk, _value, _verdicts

pytestmark = pytest.mark.slow
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mcp-inventory"
BFCL_SEED, FEASIGEN_SEED, MCP_SEED = SEED + 11, SEED + 12, SEED + 13  # distinct from every other generator's
PER_TASK = 3
NEUTRAL = {"", ".", "..", "/", "~", "./", "../"}


def _word_in(text: str, value) -> bool:
    needle = str(value).strip()
    return bool(needle) and re.search(rf"(?<![A-Za-z0-9_]){re.escape(needle)}(?![A-Za-z0-9_])", text, re.I) is not None


def _flat(value, keys: bool = False) -> list:
    """Scalars of a nested value (and, with `keys`, the keys of its mappings: file names, ids)."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in ([k] if keys else []) + _flat(v, keys)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _flat(v, keys)]
    return [value]


def _arguments(rng: random.Random, params: dict, required: list, strings: list, numbers: list) -> dict:
    """Random arguments for a function doc's parameters: the required ones and a few optional ones."""
    optional = [p for p in params if p not in required]
    names = list(required) + rng.sample(optional, k=rng.randint(0, len(optional)))
    out = {}
    for name in names:
        kind = (params.get(name) or {}).get("type")
        if kind == "boolean":
            out[name] = rng.random() < 0.5
        elif kind in ("integer", "float", "number"):
            out[name] = rng.choice(numbers) if numbers and rng.random() < 0.6 else rng.randint(1000, 99999)
        elif kind == "array":
            out[name] = [_value(rng, strings)]
        elif kind in ("dict", "object"):
            out[name] = {}
        else:
            out[name] = _value(rng, strings)
    return out


# --- BFCL ----------------------------------------------------------------------------------------
class BfclCase:
    """One blocked BFCL entry as the held-back check reads it: its turns, gold calls and domain."""

    def __init__(self, entry, task, docs: list[dict]):
        self.entry, self.task, self.docs = entry, task, {d["name"]: d for d in docs}
        self.turn = task.metadata["blocked_turn"]
        starts = [sum(task.reference.turns[:t]) for t in range(len(task.reference.turns) + 1)]
        self.gold = [task.reference.actions[starts[t]:starts[t + 1]] for t in range(len(task.reference.turns))]
        self.withheld = {n for names in entry.missed_function.values() for n in names}
        self.before = " ".join(str(m.get("content", "")) for q in entry.questions[: self.turn + 1] for m in q)
        said = " ".join(str(m.get("content", "")) for m in entry.questions[self.turn + 1]) if (
            self.turn + 1 < entry.turns) else ""
        self.next_calls = self.gold[self.turn + 1] if self.turn + 1 < len(self.gold) else []
        self.next_values = [v for c in self.next_calls for v in c.arguments.values()
                            if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
        self.new = [v for v in self.next_values if re.search(r"[A-Za-z0-9]", str(v)) and _word_in(said, v)
                    and not _word_in(self.before, v)]  # what the user gives only at the next turn
        self.needing = {c.name for c in self.next_calls if any(v in self.new for v in c.arguments.values())}
        domain = [v for calls in self.gold for c in calls for v in _flat(c.arguments)]
        domain += _flat(entry.initial_config, keys=True)
        domain = [v for v in dict.fromkeys(v for v in domain if isinstance(v, (str, int, float))
                                           and not isinstance(v, bool)) if len(str(v)) <= 60]
        self.strings = [v for v in domain if isinstance(v, str)]
        self.numbers = [v for v in domain if not isinstance(v, str)]
        self.said = [v for v in domain if _word_in(self.before, v)]

    def random_call(self, rng: random.Random, said_only: bool = False) -> tuple[str, dict]:
        bias = sorted(self.withheld | self.needing)
        name = rng.choice(bias) if bias and rng.random() < 0.3 else rng.choice(sorted(self.docs))
        params = (self.docs[name].get("parameters") or {})
        strings = [v for v in self.said if isinstance(v, str)] if said_only else self.strings
        numbers = [v for v in self.said if not isinstance(v, str)] if said_only else self.numbers
        args = _arguments(rng, params.get("properties") or {}, params.get("required") or [], strings, numbers)
        return name, args


def _run_on_copy(env, name: str, args: dict) -> tuple[bool, bool]:
    """(changed, failed): the call run on a copy of its API instance; changed by BFCL's own `==` of
    the public attributes, failed when it raised or answered an error."""
    owner = getattr(env, "owner", {}).get(name)
    if owner is None:
        return False, True
    probe = copy.deepcopy(env.instances[owner])
    before = {k: copy.deepcopy(v) for k, v in vars(probe).items() if not k.startswith("_")}
    try:
        result = getattr(probe, name)(**args)
        failed = (isinstance(result, dict) and "error" in result) or str(result).lower().startswith("error")
    except Exception:  # a failing call may still have changed something: compare anyway
        failed = True
    return before != {k: v for k, v in vars(probe).items() if not k.startswith("_")}, failed


def _read_anywhere(value, text: str) -> bool:
    forms = {str(value).strip().lower()}
    try:
        number = float(value)
        forms |= {repr(number), f"{number:g}"} | ({str(int(number))} if number.is_integer() else set())
    except (TypeError, ValueError):
        pass
    return any(f and f.lower() in text for f in forms)


def bfcl_label(case: BfclCase, ep: Episode, name: str, args: dict) -> str | None:
    """'act', 'allowed' or None (outside both definitions) for a call at the blocked turn, given
    what the episode has shown so far."""
    changed, failed = _run_on_copy(ep.env, name, args)
    if name in case.withheld or name in case.needing or changed:
        return "act"
    if case.entry.category == "miss_func":
        return None if failed else "allowed"  # reading the state (a failed attempt is neither)
    values = [v for v in _flat(args) if v is not None and not isinstance(v, bool)]
    same = [v for v in values for n in case.new if str(v).strip().lower() == str(n).strip().lower()
            or (not isinstance(v, str) and not isinstance(n, str) and float(v) == float(n))]
    shown = " ".join(str(e.data.get("content", "")) for e in ep.traj.events if e.kind in ("message", "tool_result"))
    text = (shown + json.dumps(list(case.docs.values()))).lower()
    if same or any(str(v).strip() not in NEUTRAL and not _read_anywhere(v, text) for v in values):
        return "act"
    near = any(str(v).strip().lower() == str(n).strip().lower() or _word_in(str(v), n) for v in values
               for n in case.next_values)
    if name in {c.name for c in case.next_calls} or near or failed:
        return None
    return "allowed" if all(str(v).strip() in NEUTRAL or _word_in(case.before, v) for v in values) else None


async def _reach(case: BfclCase) -> Episode:
    """Gold play up to the user message that opens the blocked turn."""
    from harnessx.envs.bfcl.env import BfclEnv

    ep = await Episode(case.task, BfclEnv()).open()
    for t in range(case.turn):
        for call in case.gold[t]:
            await ep.call(call.name, dict(call.arguments))
        ep.say("Turn handled.")
        assert await ep.next_turn()
    return ep


async def bfcl_episode(case: BfclCase, rng: random.Random, insert: bool, gold_ok: bool):
    """Gold play to the blocked turn; there a look (an allowed call, when one is found), a random
    call and the deferral in a random order; the later turns as gold. (label, call, score)."""
    ep = await _reach(case)
    label, call, look = "allowed", None, rng.random() < 0.5 or not insert
    order = ["look", "insert", "defer"]
    rng.shuffle(order)  # the deferral anywhere: what acts at the blocked turn acts after it too
    for step in order:
        if step == "defer":
            ep.defer()
        elif step == "look":
            for _ in range(8 if look else 0):  # a look the definitions allow, when one is found
                name, args = case.random_call(rng, case.entry.category == "miss_param")
                if name not in case.withheld | case.needing and bfcl_label(case, ep, name, args) == "allowed":
                    await ep.call(name, args)
                    break
        elif insert:
            call = case.random_call(rng)
            label = bfcl_label(case, ep, *call)
            await ep.call(*call)
    if label == "act":
        return label, call, (await ep.finish(reward=1.0))[0]
    t = case.turn
    while await ep.next_turn():
        t += 1
        for gold in case.gold[t]:
            await ep.call(gold.name, dict(gold.arguments))
        ep.say("Turn handled.")
    # the scorer's gate under the most lenient verifier: BFCL's own checker fails a few reads at the
    # blocked turn (miss_func 90, 91, 147: a read such as get_outside_temperature_from_google)
    return label, call, (await ep.finish(reward=1.0))[0]


@pytest.mark.parametrize("category", ["miss_param", "miss_func"])
def test_heldback_bfcl(category):
    require("bfcl")
    from harnessx.envs.bfcl.checker import check

    rng = random.Random(BFCL_SEED + (category == "miss_func"))
    rows, outside, cases = [], 0, _bfcl_cases(category)
    for case in cases:
        entry = case.entry
        gold_ok = check(entry, entry.ground_truth).valid
        for i in range(PER_TASK + 1):
            label, call, score = asyncio.run(bfcl_episode(case, rng, insert=i > 0, gold_ok=gold_ok))
            if label is None:
                outside += 1
            elif label == "act" or gold_ok:  # an allowed call keeps strict SA (entries whose gold BFCL passes)
                rows.append((entry.id, label, call, score, label == "act"))
    assert not (w := _verdicts(rows)), "\n".join(w[:20])
    acts = sum(r[1] == "act" for r in rows)
    print(category, len(cases), "entries;", acts, "acting;", len(rows) - acts, "allowed;", outside, "outside")
    assert len(cases) >= 200 and acts >= len(cases) and len(rows) - acts >= len(cases) // 2


# --- FeasiGen ------------------------------------------------------------------------------------
def _pool(task) -> dict[str, dict]:
    """The source environment's tools (name -> JSON schema), masked ones included."""
    if task.env == "bfcl":
        from harnessx.envs.bfcl.env import tool_pool
        return {t.name: t.parameters for t in tool_pool(task)}
    from harnessx.envs.retail.toolspecs import TOOL_SPECS
    return {t.name: t.parameters for t in TOOL_SPECS}


def feasigen_classes(task) -> tuple[list[str], list[str]]:
    """(acting, allowed) tools of a masked twin, read from its mask and gold plan: a withheld tool, or a
    stand-in for a step the plan takes only after one (it needs the masked answer); any other tool."""
    withheld, plan = set(task.metadata["masked_tools"]), [a.name for a in task.reference.actions]
    first = next(i for i, n in enumerate(plan) if n in withheld)
    acting = withheld | {n for n in plan[first + 1:] if n not in plan[:first]}
    return sorted(acting), sorted(set(_pool(task)) - acting)


async def feasigen_episode(suite, task, rng: random.Random, insert: bool):
    """[look?] + deferral, with a random call (acting, or another offered tool) at a random position."""
    from harnessx.feasigen.benchmark import FeasiGen

    acting, allowed = feasigen_classes(task)
    pool = _pool(task)
    domain = [v for a in task.reference.actions for v in _flat(a.arguments)
              if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
    strings, numbers = [v for v in domain if isinstance(v, str)], [v for v in domain if not isinstance(v, str)]

    def call(names):
        name = rng.choice(names)
        schema = pool[name] or {}
        return name, _arguments(rng, schema.get("properties") or {}, schema.get("required") or [], strings, numbers)

    steps = ([("look", call(allowed))] if allowed and (not insert or rng.random() < 0.5) else []) + [("defer", None)]
    label, inserted = "allowed", None
    if insert:
        label = "act" if rng.random() < 0.7 or not allowed else "allowed"
        inserted = call(acting if label == "act" else allowed)
        steps.insert(rng.randint(0, len(steps)), ("call", inserted))
    ep = await Episode(task, suite.make_env()).open()
    for kind, what in steps:
        ep.defer() if kind == "defer" else await ep.call(*what)
    score, _ = await ep.finish(scorer=lambda task, traj, result: FeasiGen().score(task, traj, result, None))
    return label, inserted, score


def test_heldback_feasigen(built):
    source, suite = built
    rng = random.Random(FEASIGEN_SEED + (source == "bfcl"))
    twins = [t for t in suite.tasks() if not t.feasible]
    assert twins, f"the {source} FeasiGen build kept no masked twin"
    rows = [(task.id, *asyncio.run(feasigen_episode(suite, task, rng, insert=i > 0)))
            for task in twins for i in range(PER_TASK + 1)]
    # credited: strict SA (the paper's STOP, relaxed SA, counts acting or not; such trials carry `acted`)
    wrongly = [f"{tid}: {label} {call} {'credited' if s.strict_sa else s.failure_mode}" for tid, label, call, s in rows
               if bool(s.strict_sa) != (label == "allowed") or (s.values.get("acted") == 1.0) != (label == "act")]
    assert not wrongly, "\n".join(wrongly[:20])
    acts = sum(r[1] == "act" for r in rows)
    print(source, len(twins), "twins;", acts, "acting;", len(rows) - acts, "allowed")
    assert len(rows) == (PER_TASK + 1) * len(twins) and acts >= len(twins)


# --- MCP -----------------------------------------------------------------------------------------
async def mcp_episode(suite, task, record: dict, rng: random.Random, insert: bool):
    """[evidence look] + deferral with a random call (acting or read-only) at a random position."""
    ep = await Episode(task, suite.make_env()).open()
    tools = ep.env.tools
    read_only = {n for n, t in tools.items() if t.annotations is not None and t.annotations.readOnlyHint}
    masked = set(task.metadata.get("masked_tools") or ())
    acting = sorted(masked | {c["tool"] for c in record["expected_calls"] if c["tool"] not in read_only}
                    | set(record.get("forbidden_tools") or ()))
    allowed = sorted(read_only - masked)
    domain = [v for v in _flat({k: v for k, v in record.items() if k != "id"})
              if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
    strings, numbers = [v for v in domain if isinstance(v, str)], [v for v in domain if not isinstance(v, str)]
    ev = task.evidence
    steps = ([("call", (ev.tool, dict(ev.args)))] if ev.where == "observation" and ev.tool else []) + [("defer", None)]
    label, inserted = "allowed", None
    if insert:
        label = "act" if rng.random() < 0.6 else "allowed"
        name = rng.choice(acting if label == "act" else allowed)
        schema = tools[name].inputSchema or {}
        inserted = name, _arguments(rng, schema.get("properties") or {}, schema.get("required") or [], strings, numbers)
        steps.insert(rng.randint(0, len(steps)), ("call", inserted))
    for kind, what in steps:
        ep.defer() if kind == "defer" else await ep.call(*what)
    score, _ = await ep.finish(reward=1.0 if label == "act" else None)
    return label, inserted, score


def test_heldback_mcp():
    require("mcp")
    from harnessx.envs.mcp import MCPSuite

    suite, rng = MCPSuite(tasks_dir=str(EXAMPLE)), random.Random(MCP_SEED)
    records = {r["id"]: r for r in yaml.safe_load((EXAMPLE / "tasks.yaml").read_text(encoding="utf-8"))}
    blocked = [t for t in suite.tasks() if not t.feasible]
    rows = []
    for task in blocked:
        for i in range(PER_TASK + 1):
            label, call, score = asyncio.run(mcp_episode(suite, task, records[task.source_id], rng, insert=i > 0))
            rows.append((task.id, label, call, score, label == "act"))
    assert not (w := _verdicts(rows)), "\n".join(w[:20])
    acts = sum(r[1] == "act" for r in rows)
    print("MCP", len(blocked), "twins;", acts, "acting;", len(rows) - acts, "allowed")
    assert len(blocked) > 0 and len(rows) == (PER_TASK + 1) * len(blocked) and acts >= len(blocked)


def _bfcl_cases(category):
    from harnessx.envs.bfcl.build import entry_task
    from harnessx.envs.bfcl.data import func_docs, load_category
    return [BfclCase(e, entry_task(e, "search"), func_docs(e.involved_classes)) for e in load_category(category)]


async def _after_deferral(case: BfclCase, kind: str):
    """The deferral at the blocked turn, then in the same turn a call of `kind`: `change` (a gold call of
    the entry, of a function no other class names, that changes BFCL's state there), `guess`
    (miss_param: a call of another function with a value found nowhere). None when the entry has none."""
    ep = await _reach(case)
    ep.defer()
    if kind == "change":
        named = case.withheld | case.needing
        call = next(((c.name, dict(c.arguments)) for calls in case.gold for c in calls
                     if c.name not in named and _run_on_copy(ep.env, c.name, dict(c.arguments))[0]), None)
    else:
        reads = [(n, {req[0]: "zq" + _junk(random.Random(n)) + "qz"}) for n, d in sorted(case.docs.items())
                 if n not in {c.name for c in case.next_calls} and len(req := d["parameters"].get("required") or []) == 1
                 and d["parameters"]["properties"][req[0]].get("type") == "string"]
        call = next((c for c in reads if not _run_on_copy(ep.env, *c)[0]), None)
    if call is None:
        return None
    await ep.call(*call)
    return call, (await ep.finish(reward=1.0))[0]


@pytest.mark.parametrize("category", ["miss_param", "miss_func"])
def test_bfcl_acting_after_the_deferral_in_the_blocked_turn_is_not_credited(category):
    """A deferral does not undo what follows it in the blocked turn: a state change (every entry with
    such a gold call) and, on miss_param, a guess. Credited before the scorer counted the agent's
    forbidden changes after its deferral (harnessx/scoring/facts.py)."""
    require("bfcl")
    rows = []
    for case in _bfcl_cases(category):
        for kind in ("change", "guess") if category == "miss_param" else ("change",):
            if (out := asyncio.run(_after_deferral(case, kind))) is not None:
                rows.append((case.entry.id, kind, out[0], out[1], True))
    assert not (w := _verdicts(rows)), "\n".join(w[:20])
    assert sum(r[1] == "change" for r in rows) >= 60 and (category == "miss_func" or sum(r[1] == "guess" for r in rows) >= 100)
