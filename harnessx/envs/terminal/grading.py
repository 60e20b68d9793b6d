"""The grade of a feasible task: what the task's tests reported (judge_plugin.py's records), never
pytest's exit code.

A run passes when pytest started, collected every test module without error, reported every test
the task's files define (read from their source here, so a test the agent's code made vanish is
missed), every phase of every test passed (a skip counts only when a skip mark of the task's own
asked for it, an expected failure only when an xfail mark did), and pytest finished with status 0.
Anything else is a failure with its cause named. Only a run that never started (the sandbox or the
interpreter could not run pytest: nothing of the agent had been imported yet) is the environment's
fault, and a task whose files define no test. A record without the token of the run's `start`, one
that repeats a phase or cannot be read means something forged the stream; a record saying pytest's
machinery was tampered with fails the run.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

RECORD_LIMIT = 200_000  # records; a larger stream is a flood


@dataclass
class Verdict:
    reward: float
    cause: str = ""  # why the run failed (empty when it passed)
    excluded: bool = False  # the environment's fault: pytest never started, or the task defines no test
    counts: dict[str, int] = field(default_factory=dict)
    agent_modules: list[str] = field(default_factory=list)  # agent code the tests ran in the judged process


def expected_tests(test_dir: Path, files: list[str]) -> set[str]:
    """Node ids (without parameters) of the tests the task's files define: module-level `test*`
    functions and `test*` methods of `Test*` classes without an `__init__`, as pytest collects them."""
    found = set()
    for name in files:
        try:
            tree = ast.parse((test_dir / name).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                found.add(f"{name}::{node.name}")
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                if any(m.name == "__init__" for m in methods):
                    continue
                found |= {f"{name}::{node.name}::{m.name}" for m in methods if m.name.startswith("test")}
    return found


def parse(stream: bytes) -> tuple[list[dict], str]:
    """The records of a stream, and a problem ('' when every line is a record)."""
    records = []
    for line in stream.splitlines():
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            return records, "an unreadable line in the result stream"
        if not isinstance(record, dict) or not isinstance(record.get("event"), str):
            return records, "a malformed record in the result stream"
        records.append(record)
        if len(records) > RECORD_LIMIT:
            return records, "a flood of records in the result stream"
    return records, ""


def phase_ok(r: dict) -> bool:
    if r.get("outcome") == "passed":
        return r.get("when") != "call" or r.get("raised") is None
    if r.get("outcome") == "skipped" and r.get("xfailed"):
        return bool(r.get("xfail_mark"))
    if r.get("outcome") == "skipped" and r.get("when") == "setup":
        return bool(r.get("skip_mark"))
    return False


def _phases(records: list[dict]) -> tuple[dict[tuple[str, str], dict], str]:
    """(node id, phase) -> its record, and a problem ('' when none): a failed collection, or a
    phase reported twice."""
    seen: dict[tuple[str, str], dict] = {}
    for r in records:
        if r["event"] == "collect":
            return seen, f"collecting {r.get('nodeid') or 'the tests'} failed"
        if r["event"] == "report":
            key = (str(r.get("nodeid")), str(r.get("when")))
            if key in seen:
                return seen, f"{key[0]} reported its {key[1]} twice: the results were forged"
            seen[key] = r
    return seen, ""


def _test_problem(seen: dict[tuple[str, str], dict], nodes: list[str], expected: set[str]) -> str:
    missing = sorted(e for e in expected if not any(n == e or n.startswith(e + "[") for n in nodes))
    if missing:
        return f"expected tests never ran: {', '.join(missing[:5])}"
    for nodeid in nodes:
        phases = {when: r for (n, when), r in seen.items() if n == nodeid}
        if "call" not in phases and not any(r.get("outcome") == "skipped" for r in phases.values()):
            return f"{nodeid} never ran its test body"
        bad = [w for w, r in phases.items() if not phase_ok(r)]
        if bad:
            return f"{nodeid} {phases[bad[0]].get('outcome')} in {bad[0]}"
    return ""


def grade(stream: bytes, expected: set[str], exit_code: int) -> Verdict:
    records, problem = parse(stream)
    starts = [r for r in records if r["event"] == "start"]
    if not starts:
        return Verdict(0.0, f"pytest never started (exit {exit_code})", excluded=True)
    finishes = [r for r in records if r["event"] == "finish"]
    token = starts[0].get("t")
    if not problem and (not token or any(r.get("t") != token for r in records)):
        problem = "a record without the judge's token"
    if problem or len(starts) > 1 or len(finishes) > 1:
        return Verdict(0.0, f"{problem or 'a second start or finish record'}: the results were forged")
    tampered = next((r["tampered"] for r in records if r.get("tampered")), "")
    if tampered:
        return Verdict(0.0, f"pytest was tampered with during the run: {tampered}")
    seen, problem = _phases(records)
    if problem:
        return Verdict(0.0, problem)
    if not finishes:
        return Verdict(0.0, f"the test run ended before pytest finished (exit {exit_code})")
    agent_modules = [str(m) for m in finishes[0].get("agent_modules") or []]
    nodes = sorted({nodeid for nodeid, _ in seen})
    counts = {"tests": len(nodes), "passed": sum(all(phase_ok(r) for k, r in seen.items() if k[0] == n) for n in nodes)}
    if not nodes:
        return Verdict(0.0, "no test ran" if expected else "the task's files define no test", counts=counts, agent_modules=agent_modules,
                       excluded=not expected)
    problem = _test_problem(seen, nodes, expected)
    if problem:
        return Verdict(0.0, problem, counts=counts, agent_modules=agent_modules)
    if finishes[0].get("exitstatus") != 0:
        return Verdict(0.0, f"pytest finished with status {finishes[0].get('exitstatus')}", counts=counts, agent_modules=agent_modules)
    return Verdict(1.0, counts=counts, agent_modules=agent_modules)
