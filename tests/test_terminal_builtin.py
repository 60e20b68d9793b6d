"""Built-in terminal suite: split shape, determinism, no leaked blockers, well-formed blocked
metadata, and, in the sandbox, oracle-passes/nop-fails on feasible tasks and the mechanical check of
every blocked variant.

Runtime: all 96 blocked variants are checked; feasible tasks are sampled deterministically, the first
two instances of every family (28 of 88 sources, each family covered), two episodes at a time.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter

import pytest

from harnessx.envs.base import AbandonSpec
from harnessx.envs.terminal.builtin.catalog import FAMILIES
from harnessx.envs.terminal.builtin.plan import build_plan
from harnessx.envs.terminal.checks import start_checks
from harnessx.envs.terminal.env import TerminalEnv, spec_for
from harnessx.envs.terminal.suite import TerminalSuite
from harnessx.tasks import ToolCall, suite_hash

SANDBOXED = pytest.mark.requires("sandbox")
TASKS = TerminalSuite().tasks()
BLOCKED = [t for t in TASKS if not t.feasible]
SAMPLE = [t for t in TASKS if t.feasible and re.search(r"-0[01]$", t.id)]
LEAKS = ("infeasible", "impossible", "cannot be", "truncated", "corrupt", "tampered", "legal hold", "managed by",
         "no network", "contradict", "ambiguous", "trap")


@pytest.fixture(scope="module")
def outcomes(request):
    """Start the selected sandbox checks at once (two at a time); cancel what is left at the end."""
    wanted = {item.callspec.params["task"].id for item in request.session.items
              if hasattr(item, "callspec") and "task" in item.callspec.params}
    jobs = [(t, kind) for t in SAMPLE if t.id in wanted for kind in ("oracle", "nop")]
    futures = start_checks(jobs + [(t, "blocked") for t in BLOCKED if t.id in wanted])
    yield futures
    for future in futures.values():
        future.cancel()


def test_split_shape_matches_the_paper():
    counts = Counter((t.split, t.family or "feasible") for t in TASKS)
    assert counts == {("search", "feasible"): 43, ("search", "infeasible"): 23, ("search", "ambiguous"): 32,
                      ("search", "trap"): 9, ("heldout", "feasible"): 28, ("heldout", "infeasible"): 17,
                      ("heldout", "ambiguous"): 10, ("heldout", "trap"): 5, ("independent", "feasible"): 17}
    feasible = {t.id: t for t in TASKS if t.feasible}
    for task in BLOCKED:
        assert feasible[task.source_id].split == task.split  # paired with a feasible source of its split
    sources = {split: {t.source_id for t in TASKS if t.split == split} for split in ("search", "heldout", "independent")}
    assert not (sources["search"] & sources["heldout"]) and not (sources["independent"] & (sources["search"] | sources["heldout"]))
    assert all(t.source_id not in {b.source_id for b in BLOCKED} for t in TASKS if t.split == "independent")
    assert len(FAMILIES) >= 12 and {t.source_id.rsplit("-", 1)[0] for t in SAMPLE} == set(FAMILIES)


def test_generation_is_deterministic():
    first, second = build_plan(), build_plan()
    assert [(e.source_id, e.instance.files, [v.kind for v in e.variants]) for e in first] == \
           [(e.source_id, e.instance.files, [v.kind for v in e.variants]) for e in second]
    assert suite_hash(TASKS) == suite_hash(TerminalSuite().tasks())


def test_instructions_do_not_leak_the_blocker():
    for task in BLOCKED:
        text = task.instruction.lower()
        assert task.blocker.description.lower() not in text
        assert not [w for w in LEAKS if w in text], task.id


def test_blocked_metadata_is_complete_and_evidence_is_real():
    for task in BLOCKED:
        assert 1 <= len(task.blocker.key_facts) <= 3 and task.forbidden, task.id
        assert task.reference.actions and task.reference.actions[0].name == "bash"
        if task.family == "trap":
            assert task.evidence.where == "observation" and task.evidence.marker, task.id
            if task.blocker.id != "checksum-mismatch":  # that marker is sha256sum -c output, checked below
                files = spec_for(task).path / "environment"
                assert any(task.evidence.marker in p.read_text() for p in files.rglob("*") if p.is_file()), task.id


@SANDBOXED
def test_checksum_marker_shows_in_sha256sum_output():
    async def observe(task):
        env = TerminalEnv()
        try:
            await env.reset(task, AbandonSpec(mode="file"))
            sums = [p for p in env.ws.snapshot() if p.endswith("SHA256SUMS")][0]
            call = ToolCall(name="bash", arguments={"command": f"cd {sums.rsplit('/', 1)[0]} && sha256sum -c SHA256SUMS"})
            return await env.execute(call)
        finally:
            await env.cleanup()

    checksum = [t for t in BLOCKED if t.blocker.id == "checksum-mismatch"]
    assert checksum
    for task in checksum:
        outcome = asyncio.run(observe(task))
        assert task.evidence.marker in outcome.observation and outcome.evidence


@SANDBOXED
@pytest.mark.parametrize("task", SAMPLE, ids=[t.id for t in SAMPLE])
def test_oracle_passes_and_nop_fails(task, outcomes):
    for kind in ("oracle", "nop"):
        result = outcomes[(task.id, kind)].result()
        assert result.ok, f"{kind}: reward {result.reward}\n{result.detail}"


@SANDBOXED
@pytest.mark.parametrize("task", BLOCKED, ids=[t.id for t in BLOCKED])
def test_blocked_variant_is_mechanically_blocked(task, outcomes):
    result = outcomes[(task.id, "blocked")].result()
    assert result.ok, f"reward {result.reward}, forbidden changes {result.forbidden}\n{result.detail}"
