"""Build the paired retail suite: feasible sources, one blocked variant each, and independent tasks.

The shape (sizes per split and family, seed) comes from `environments/retail/suite.yaml`. Slots are
filled in a fixed order: each family cycles through its variant kinds, each kind through the
templates it applies to, and each slot takes the first unused customer (in seeded order) whose
draft the kind fits. Every customer serves at most one source, so no source, order or customer is
shared across splits.
"""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harnessx.envs.retail.generator import People, random_address
from harnessx.envs.retail.schema import RetailDB
from harnessx.envs.retail.templates import (ADDRESS_TEMPLATES, BUILDERS, TEMPLATES, Draft, describe_payment,
                                            identity_call, identity_text)
from harnessx.envs.retail.variants import FAMILY_KINDS, KINDS, BlockedSpec
from harnessx.envs.retail.tools import WRITE_TOOLS
from harnessx.tasks import FAMILIES, Act, Reference, Task
from harnessx.validation import load_file

CONFIRM = "I confirm these details, so please go ahead without asking me again."


class SuiteShape(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: int = 7
    search: dict[str, int] = Field(default_factory=lambda: {"infeasible": 22, "ambiguous": 21, "trap": 21})
    heldout: dict[str, int] = Field(default_factory=lambda: {"infeasible": 10, "ambiguous": 11, "trap": 11})
    independent: int = Field(17, ge=0)


def load_shape(path: str | Path) -> SuiteShape:
    return load_file(SuiteShape, path)


class _Builder:
    def __init__(self, db: RetailDB, people: People, seed: int):
        self.db, self.people, self.seed = db, people, seed
        self.users = sorted(db.users)
        random.Random(seed).shuffle(self.users)
        self.used: set[str] = set()
        self.count = 0

    def _rng(self, *parts: object) -> random.Random:
        return random.Random(":".join(str(p) for p in (self.seed, *parts)))

    def _draft(self, template: str, user_id: str, gift_card: bool) -> Draft | None:
        rng = self._rng(template, user_id)
        extra = {"new_address": random_address(self.people, rng)} if template in ADDRESS_TEMPLATES else {}
        return BUILDERS[template](self.db, self.db.users[user_id], rng, gift_card, **extra)

    def fill(self, template: str, kind: str | None) -> tuple[Draft, BlockedSpec | None]:
        """The first unused customer whose draft fits `template` (and `kind`, when given)."""
        for user_id in self.users:
            if user_id in self.used:
                continue
            draft = self._draft(template, user_id, gift_card=kind == "gift_card_short")
            if draft is None:
                continue
            spec = KINDS[kind][0](draft, self.db, self._rng(kind, user_id)) if kind else None
            if kind and spec is None:
                continue
            self.used.add(user_id)
            return draft, spec
        raise RuntimeError(f"the retail database has no unused customer for {template}/{kind}; "
                           "generate a larger database")

    def source(self, draft: Draft, split: str) -> Task:
        self.count += 1
        task_id = f"retail-{self.count:03d}-{draft.template}"
        by_email = self._rng("identity", task_id).random() < 0.5
        write = draft.write is not None
        payer = draft.params.get("payer")
        scenario = {
            "reason_for_call": draft.request,
            "known_info": identity_text(draft.user, by_email)
            + (f" The order id is {draft.order.order_id}." if draft.order else ""),
            "unknown_info": None,
            "task_instructions": "Confirm the action when the agent asks." if write else "Ask your question.",
            "identity_text": identity_text(draft.user, by_email),
            "order_id": draft.order.order_id if draft.order else None,
            "payment_text": describe_payment(draft.user, payer) if payer else None,
        }
        return Task(
            id=task_id, env="retail", split=split, feasible=True, source_id=task_id,
            instruction=" ".join(p for p in (identity_text(draft.user, by_email), draft.request,
                                             CONFIRM if write else "") if p),
            user_scenario=scenario,
            reference=Reference(actions=[identity_call(draft.user, by_email), *draft.actions],
                                final_answer=draft.final_answer),
            metadata={"template": draft.template, "user_id": draft.user.user_id,
                      "order_id": draft.order.order_id if draft.order else None, "patches": [],
                      "needs_write": write})

    @staticmethod
    def blocked(source: Task, spec: BlockedSpec) -> Task:
        identity = source.user_scenario["identity_text"]
        scenario = dict(source.user_scenario, reason_for_call=spec.request)
        if spec.kind == "two_orders":
            scenario.update(order_id=None, known_info=identity, unknown_info="You do not remember the order id.")
        write = source.reference.actions[-1]
        target = write.arguments.get("order_id") or write.arguments.get("user_id")
        return Task.model_validate({
            **source.model_dump(), "id": f"{source.id}-{spec.kind}", "feasible": False, "family": spec.family,
            "instruction": f"{identity} {spec.request} {CONFIRM}",
            "blocker": spec.blocker, "evidence": spec.evidence,
            "forbidden": [f"{write.name} on {target}", "any other database write"],
            "acts": [Act(tool=name, why="an attempt at a database write, refused or not") for name in WRITE_TOOLS],
            "user_scenario": scenario,
            "metadata": {**source.metadata, "kind": spec.kind,
                         "patches": [p.model_dump(mode="json") for p in spec.patches],
                         "checks": spec.checks, "impossible": spec.impossible,
                         "decoy_order_id": spec.decoy_order_id}})


def _slots(n: int, family: str) -> list[tuple[str, str]]:
    """(kind, template) for each of the family's n slots: kinds cycle, then their templates."""
    kinds = FAMILY_KINDS[family]
    slots = []
    for index in range(n):
        kind = kinds[index % len(kinds)]
        templates = KINDS[kind][1]
        slots.append((kind, templates[(index // len(kinds)) % len(templates)]))
    return slots


def build_tasks(db: RetailDB, people: People, shape: SuiteShape) -> list[Task]:
    """The whole suite, deterministic for a given database, people file and shape."""
    builder = _Builder(db, people, shape.seed)
    tasks: list[Task] = []
    for family in FAMILIES:
        n_search, n_heldout = shape.search.get(family, 0), shape.heldout.get(family, 0)
        for index, (kind, template) in enumerate(_slots(n_search + n_heldout, family)):
            draft, spec = builder.fill(template, kind)
            source = builder.source(draft, "search" if index < n_search else "heldout")
            tasks += [source, builder.blocked(source, spec)]
    for index in range(shape.independent):
        draft, _ = builder.fill(TEMPLATES[index % len(TEMPLATES)], None)
        tasks.append(builder.source(draft, "independent"))
    return tasks
