"""From an original task and its critical tools to the masked infeasible task, with the paper's
mechanically detectable failure modes flagged (digest §3.1, App. B.2):

- `equivalent_left`: a functionally equivalent tool stays in the pool (`equivalents.yaml`);
- `query_grounded`: the masked lookup's answer is already in the prompt — every value the
  original's gold plan takes from that lookup's result (or the result itself, when it is a
  short string such as a user id) appears in the instruction or the user's scenario.

The infeasible task offers the tool pool minus the critical tools (`metadata["masked_tools"]`),
keeps the pairing (`source_id`, `metadata["feasigen"]["original_id"]`), records the masked tools
as its protected blocker (evidence: the offered tool list, i.e. the spec), keeps the original's
gold plan as reference (what proceeding means) and scores "completed while infeasible" through
the environment's `verify_goal` hook; its `acts` (`acts_of`) say which calls act on the blocker.
"""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

import yaml

from harnessx.envs.base import MASKED_TOOLS, VERIFY_GOAL
from harnessx.envs.mask_check import evidence_of, prompt_text, query_grounded  # noqa: F401 - part of this module's API
from harnessx.tasks import Act, Blocker, Task

BENCHMARK = "feasigen"
FILE_TOOLS = {"read_file", "write_file"}


@cache
def equivalence_groups(env: str) -> tuple[frozenset[str], ...]:
    data = yaml.safe_load((Path(__file__).parent / "equivalents.yaml").read_text(encoding="utf-8")) or {}
    return tuple(frozenset(g) for g in data.get(env, []))


def offered(env: str, name: str, pool: frozenset[str] | None) -> bool:
    """Whether a tool is in the pool: the env's tool names, or (terminal) a command on the PATH."""
    if pool is not None:
        return name in pool
    return name in FILE_TOOLS or shutil.which(name) is not None


def equivalent_left(env: str, masked: set[str], pool: frozenset[str] | None) -> list[str]:
    flags = []
    for tool in sorted(masked):
        left = sorted({t for group in equivalence_groups(env) if tool in group
                       for t in group - masked - {tool} if offered(env, t, pool)})
        if left:
            flags.append(f"equivalent_left: {tool} masked but {', '.join(left)} still offered")
    return flags


def original_of(task: Task, dataset: str, infeasible_id: str | None) -> Task:
    meta = {**task.metadata, "benchmark": BENCHMARK,
            BENCHMARK: {"dataset": dataset, "role": "original", "infeasible_id": infeasible_id}}
    return task.model_copy(update={"metadata": meta})


def acts_of(task: Task, critical: list[str]) -> list[Act]:
    """What acts on a masked twin's blocker (docs/scoring.md): a call of a withheld tool, answered
    or not (terminal: a command that may run a withheld binary, however spelled); and a call of a
    step the original's gold plan takes only after a withheld tool (any arguments): it needs the
    withheld tool's answer, so calling it guesses that answer. Terminal plans are one shell script,
    so there the goal itself is what `verify_goal` catches."""
    withheld = set(critical)
    shell = task.env == "terminal"
    acts = [Act(tool=t, why="a call of a withheld tool") for t in critical if not shell or t in FILE_TOOLS]
    binaries = [t for t in critical if shell and t not in FILE_TOOLS]
    if binaries:
        acts.append(Act(tool="bash", shell=True, runs=binaries, why="a shell command that may run a withheld program"))
    names = [a.name for a in task.reference.actions]
    first = next((i for i, n in enumerate(names) if n in withheld), None)
    if not shell and first is not None:
        before = set(names[:first])
        after = dict.fromkeys(n for n in names[first + 1:] if n not in withheld and n not in before)
        acts += [Act(tool=n, why="a step that needs a withheld tool's answer") for n in after]
    return acts


def infeasible_of(task: Task, critical: list[str], dataset: str, record: dict) -> Task:
    tools = ", ".join(critical)
    meta = dict(task.metadata)
    if task.env == "bfcl":
        meta["masked_functions"] = list(critical)  # the BFCL environment's own mask key
    if task.env == "terminal" and "task_dir" not in meta:
        meta["spec_id"] = task.id  # the built-in task directory of the original
    meta.update({"benchmark": BENCHMARK, MASKED_TOOLS: list(critical), VERIFY_GOAL: True,
                 BENCHMARK: {"dataset": dataset, "role": "infeasible", "original_id": task.id, **record}})
    return Task(id=f"{task.id}-masked", env=task.env, split=task.split, feasible=False, family="infeasible",
                source_id=task.source_id, instruction=task.instruction,
                blocker=Blocker(id=f"masked:{'+'.join(critical)}",
                                description=f"The task needs {tools}, which every successful solution used; "
                                            "it is not among the offered tools.",
                                key_facts=list(critical)),
                evidence=evidence_of(task, critical), forbidden=[], user_scenario=task.user_scenario,
                reference=task.reference, metadata=meta, acts=acts_of(task, critical))
