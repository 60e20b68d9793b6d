"""Which instances go to which split, and which blocked variants each source gets.

Feasible instances are dealt round-robin over the families, then cut into the splits in order, so
every split covers the families and sources are disjoint. Blocked variants are assigned per split to
meet the configured family counts exactly: scarce families first, each slot to the source with the
fewest variants so far (every source gets at least one), preferring the kind used least so far.
"""

from __future__ import annotations

import random
import tomllib
from collections import Counter
from dataclasses import dataclass

from harnessx.envs.terminal.builtin.catalog import FAMILIES
from harnessx.envs.terminal.builtin.family import SUITE_DATA, Instance
from harnessx.envs.terminal.builtin.variants import Variant, variants

SPLITS = ("search", "heldout", "independent")
ORDER = ("trap", "infeasible", "ambiguous")


@dataclass
class Entry:
    split: str
    instance: Instance
    variants: list[Variant]

    @property
    def source_id(self) -> str:
        return f"{self.instance.family.name}-{self.instance.index:02d}"


def config() -> dict:
    return tomllib.loads((SUITE_DATA / "suite.toml").read_text(encoding="utf-8"))


def assign(entries: list[Entry], candidates: dict[str, list[Variant]], counts: dict[str, int], rng: random.Random) -> None:
    used_kinds: Counter = Counter()
    order = {e.source_id: i for i, e in enumerate(rng.sample(entries, len(entries)))}
    for fam in ORDER:
        for _ in range(counts.get(fam, 0)):
            options = [(len(e.variants), used_kinds[v.kind], order[e.source_id], i, e, v)
                       for i, e in enumerate(entries) for v in candidates[e.source_id]
                       if v.family == fam and all(v.kind != w.kind for w in e.variants)]
            if not options:
                raise ValueError(f"not enough {fam} variants for the configured split")
            *_, entry, chosen = min(options, key=lambda o: o[:4])
            entry.variants.append(chosen)
            used_kinds[chosen.kind] += 1
    if counts and any(not e.variants for e in entries):
        raise ValueError("a source has no blocked variant: too few blocked slots for its split")


def build_plan() -> list[Entry]:
    cfg = config()
    seed, names = cfg["seed"], cfg["families"]
    total = sum(cfg["splits"][s]["feasible"] for s in SPLITS)
    instances = [FAMILIES[names[k % len(names)]]().instance(k // len(names), seed) for k in range(total)]
    entries, start = [], 0
    for split in SPLITS:
        size, counts = cfg["splits"][split]["feasible"], cfg["splits"][split].get("blocked", {})
        chunk = [Entry(split, inst, []) for inst in instances[start:start + size]]
        start += size
        if counts:
            candidates = {e.source_id: variants(e.instance, seed) for e in chunk}
            assign(chunk, candidates, counts, random.Random(f"{seed}:{split}"))
        entries += chunk
    return entries
