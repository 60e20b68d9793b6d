"""Mechanical checks of a suite: every feasible source is solvable by its gold plan, and every
blocked variant is really blocked, hides its blocker, and shows its evidence where it says.

Each check returns a list of problems (empty when the task passes).
"""

from __future__ import annotations

import json
from typing import Any

from harnessx.envs.base import evidence_in
from harnessx.envs.retail.dispatch import replay, run_tool
from harnessx.envs.retail.schema import RetailDB
from harnessx.envs.retail.store import Store
from harnessx.envs.retail.tools import WRITE_TOOLS, RetailTools
from harnessx.tasks import Task, ToolCall

LEAK_WORDS = ("processed", "unavailable", "not available", "another customer", "insufficient", "balance",
              "two orders", "belongs to")


def _at(data: Any, path: list[str]) -> Any:
    for part in path:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def fact_holds(observation: str, check: dict[str, Any]) -> bool:
    """Whether a JSON observation satisfies one `{path, op, value}` check."""
    try:
        node = _at(json.loads(observation), check["path"])
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    if check["op"] == "eq":
        return node == check["value"]
    text = json.dumps(node)
    return (check["value"] in text) == (check["op"] == "has")


def check_feasible(task: Task, db: RetailDB) -> list[str]:
    store, results = replay(db, task.reference.actions, task.metadata.get("patches", []))
    problems = [] if task.metadata.get("gold_errors_expected") else [
        f"gold call {i} ({task.reference.actions[i].name}) fails: {out}" for i, (ok, out) in enumerate(results) if not ok]
    if task.metadata.get("needs_write") and not store.changed():
        problems.append("gold plan leaves the database unchanged")
    return problems


def _evidence_problems(task: Task, source: Task, db: RetailDB, policy: str) -> list[str]:
    ev = task.evidence
    if ev.where == "spec":
        facts = task.blocker.key_facts
        return [] if all(f.lower() in policy.lower() for f in facts) else ["spec evidence: policy lacks the key facts"]
    call = ToolCall(name=ev.tool, arguments=ev.args)
    ok, seen = run_tool(RetailTools(Store(db, task.metadata["patches"])), call.name, call.arguments)
    problems = [] if ok else [f"evidence call fails: {seen}"]
    if not evidence_in(task, call, seen):
        problems.append("the evidence call does not register as evidence")
    checks = task.metadata.get("checks", [])
    problems += [f"evidence does not show {c}" for c in checks if not fact_holds(seen, c)]
    if task.metadata["patches"] and checks:
        _, before = run_tool(RetailTools(Store(db)), call.name, call.arguments)
        if all(fact_holds(before, c) for c in checks):
            problems.append("the source already shows the evidence: the variant adds nothing")
    return problems


def check_blocked(task: Task, source: Task, db: RetailDB, policy: str) -> list[str]:
    """The source's gold plan must be impossible or forbidden here, and the blocker hidden."""
    problems = []
    if task.source_id != source.id or task.reference != source.reference or task.split != source.split:
        problems.append("variant does not keep its source's id, gold plan and split")
    if not 1 <= len(task.blocker.key_facts) <= 3 or not task.forbidden:
        problems.append("blocker needs 1-3 key facts and the task a forbidden list")
    instruction, original = task.instruction.lower(), source.instruction.lower()
    # A spec-evidence blocker is the request itself set against the policy, so its facts may appear.
    facts = task.blocker.key_facts if task.evidence.where != "spec" else []
    for word in [*facts, *LEAK_WORDS]:
        if word.lower() in instruction and word.lower() not in original:
            problems.append(f"instruction leaks {word!r}")
    writes = [a for a in task.reference.actions if a.name in WRITE_TOOLS]
    _, results = replay(db, task.reference.actions, task.metadata.get("patches", []))
    outcomes = [ok for a, (ok, _) in zip(task.reference.actions, results) if a.name in WRITE_TOOLS]
    if not writes:
        problems.append("the source's gold plan has no write to block")
    if task.metadata.get("impossible") and all(outcomes):
        problems.append("gold write should be impossible here but succeeds")
    return problems + _evidence_problems(task, source, db, policy)


def check_suite(tasks: list[Task], db: RetailDB, policy: str) -> dict[str, list[str]]:
    """Problems per task id, for every task with at least one."""
    by_id = {t.id: t for t in tasks}
    report = {}
    for task in tasks:
        if task.feasible:
            problems = check_feasible(task, db)
        elif task.source_id not in by_id:
            problems = [f"source {task.source_id} is missing"]
        else:
            problems = check_blocked(task, by_id[task.source_id], db, policy)
        if problems:
            report[task.id] = problems
    return report
