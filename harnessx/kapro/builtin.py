"""The built-in KAPRO suite, generated deterministically from `environments/kapro/`:
`tools.yaml` (servers, tools, rubric labels), `templates.yaml` (task templates per cell) and
`generator.yaml` (seed, tasks per cell, held-out share, slot pools).

Cells are subspace × hop (external and internal × single-hop/parallel/multi-hop, hybrid ×
parallel/multi-hop); every cell gets the same number of tasks, drawn round-robin from its
templates, the last `heldout_per_cell` of each cell held out. Every P1 step's tool must be
labelled external by the rubric and every P3 step's internal (else the data is refused).
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from harnessx.envs.retail.calculator import calculate
from harnessx.envs.retail.toolspecs import TOOL_SPECS
from harnessx.errors import InputError, one_of
from harnessx.kapro.items import KaproItem, Step
from harnessx.kapro.rubric import classify

DATA_DIR = Path(__file__).resolve().parents[2] / "environments" / "kapro"
CELLS = (("external", "single-hop"), ("external", "parallel"), ("external", "multi-hop"),
         ("hybrid", "parallel"), ("hybrid", "multi-hop"),
         ("internal", "single-hop"), ("internal", "parallel"), ("internal", "multi-hop"))
_SLOT = re.compile(r"\{(\w+)\}")


def _yaml(path: Path) -> dict:
    if not path.is_file():
        raise InputError(str(path), "file not found", "the KAPRO suite data (tools, templates, generator)")
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def load_catalogue(data_dir: Path = DATA_DIR) -> dict[str, dict[str, Any]]:
    """tool name -> {server, block (OpenAI function block), label (rubric)}."""
    retail = {t.name: t for t in TOOL_SPECS}
    out = {}
    for server, spec in _yaml(data_dir / "tools.yaml")["servers"].items():
        for name, tool in spec["tools"].items():
            where = f"{data_dir / 'tools.yaml'}: servers.{server}.tools.{name}"
            if tool.get("from") == "retail":
                if name not in retail:
                    raise InputError(where, "not a retail tool", one_of(sorted(retail)))
                block = retail[name].openai()
            else:
                block = {"type": "function", "function": {"name": name, "description": tool["description"],
                                                          "parameters": tool["parameters"]}}
            out[name] = {"server": server, "block": block, "label": classify(tool["rubric"], where)}
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")
    return str(value)


def _fill(text: Any, slots: dict[str, str]) -> Any:
    if isinstance(text, dict):
        return {k: _fill(v, slots) for k, v in text.items()}
    if not isinstance(text, str):
        return text
    return _SLOT.sub(lambda m: slots[m.group(1)] if m.group(1) in slots else m.group(0), text)


def _draw(spec: dict, pools: dict, rng: random.Random, where: str) -> str:
    if "choice" in spec:
        pool = pools.get(spec["choice"], spec["choice"])
        return str(rng.choice(pool))
    if "int" in spec:
        low, high = spec["int"]
        return str(rng.randint(low, high))
    if "pattern" in spec:
        return "".join(str(rng.randint(0, 9)) if c == "9" else c for c in spec["pattern"])
    raise InputError(where, f"slot spec {spec!r}", "choice, int or pattern")


def _instantiate(tpl: dict, index: int, split: str, pools: dict, catalogue: dict, rng: random.Random) -> KaproItem:
    where = f"templates.yaml: {tpl['id']}"
    slots = {name: _draw(spec, pools, rng, where) for name, spec in (tpl.get("slots") or {}).items()}
    for name, expr in (tpl.get("derived") or {}).items():
        slots[name] = _fmt(float(calculate(_fill(expr, slots))))
    steps, responses, arguments = [], {}, {}
    for step in tpl["steps"]:
        tool = step["tool"]
        if tool not in catalogue:
            raise InputError(where, f"unknown tool {tool!r}", "a tool of tools.yaml")
        want = "external" if step["boundary"] == "P1" else "internal"
        if catalogue[tool]["label"] != want:
            raise InputError(where, f"{step['boundary']} step uses {tool!r}, labelled {catalogue[tool]['label']} "
                                    "by the rubric", f"a tool labelled {want}")
        steps.append(Step(subquestion=_fill(step["subquestion"], slots), tool=tool, boundary=step["boundary"]))
        responses.setdefault(tool, []).append(_fill(step["response"], slots))
        arguments.setdefault(tool, {k: _fill(v, slots) for k, v in step["arguments"].items()})
    offered = list(dict.fromkeys(s.tool for s in steps))
    return KaproItem(
        id=f"kapro-{tpl['subspace'][:3]}-{tpl['hop'].split('-')[0]}-{index:02d}-{tpl['id']}", split=split,
        task=_fill(tpl["task"], slots), subspace=tpl["subspace"], hop=tpl["hop"], server=tpl["server"],
        tools=[catalogue[t]["block"] for t in offered],
        required=list(dict.fromkeys(s.tool for s in steps if s.boundary == "P1")), responses=responses,
        arguments=arguments, answer=_fill(tpl["answer"], slots), facts=[_fill(f, slots) for f in tpl["facts"]],
        steps=steps, dependency={"logic_type": tpl["hop"]})


@lru_cache(maxsize=4)
def _built(data_dir: str) -> tuple[KaproItem, ...]:
    root = Path(data_dir)
    gen, catalogue = _yaml(root / "generator.yaml"), load_catalogue(root)
    templates = _yaml(root / "templates.yaml")["templates"]
    rng = random.Random(gen["seed"])
    items = []
    for subspace, hop in CELLS:
        cell = [t for t in templates if t["subspace"] == subspace and t["hop"] == hop]
        if not cell:
            raise InputError(str(root / "templates.yaml"), f"no template for cell {subspace} × {hop}")
        n, held = gen["per_cell"], gen["heldout_per_cell"]
        for i in range(n):
            split = "heldout" if i >= n - held else "search"
            items.append(_instantiate(cell[i % len(cell)], i, split, gen.get("pools", {}), catalogue, rng))
    return tuple(items)


def builtin_items(data_dir: str | Path = DATA_DIR) -> list[KaproItem]:
    return list(_built(str(Path(data_dir).resolve())))


def catalogue_blocks(data_dir: str | Path = DATA_DIR) -> dict[str, tuple[str, dict]]:
    """tool name -> (server, block): the pool distractors are drawn from."""
    return {name: (t["server"], t["block"]) for name, t in load_catalogue(Path(data_dir)).items()}
