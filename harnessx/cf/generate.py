"""The built-in Confident Fools suite, generated deterministically from `environments/cf/`.

A corpus of dated news articles about fictional companies, products and people (so no model can
know them), all dated after a configurable cut-off; one OK item per keyed article (the key is the
article's fact, distractors are other values of the same field, so the article makes them false);
IK items from a bank of widely known facts on the same four themes; balanced keyed positions;
search / held-out splits per domain x type; the temporal-cue tag computed by the digest's regex.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from harnessx.cf.items import DOMAINS, Article, Item
from harnessx.errors import InputError
from harnessx.validation import load_file

CONFIG_DIR = Path(__file__).resolve().parents[2] / "environments" / "cf"
BUILTIN_NAMES = ("company", "product", "person")


class GeneratorConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    seed: int = 17
    cutoff: date = date(2026, 6, 30)
    window_days: int = Field(150, ge=1)
    ok_per_domain: int = Field(10, ge=1)
    background_per_domain: int = Field(15, ge=0)
    ik_per_domain: int = Field(10, ge=1)
    cued_fraction: float = Field(0.6, ge=0.0, le=1.0)
    heldout_fraction: float = Field(0.4, ge=0.0, lt=1.0)


@dataclass(frozen=True)
class BuiltinSuite:
    config: GeneratorConfig
    articles: tuple[Article, ...]
    items: tuple[Item, ...]


class Names:
    """Fictional names from syllables, never reused within one corpus."""

    def __init__(self, rng: random.Random, data: dict):
        self.rng, self.data, self.used = rng, data, set()

    def _fresh(self, make) -> str:
        for _ in range(10_000):
            name = make()
            if name not in self.used:
                self.used.add(name)
                return name
        raise InputError("environments/cf/names.yaml", "ran out of fictional names", "more syllables")

    def _stem(self) -> str:
        return self.rng.choice(self.data["first"]) + self.rng.choice(self.data["second"])

    def company(self) -> str:
        return self._fresh(lambda: f"{self._stem()} {self.rng.choice(self.data['company_suffix'])}")

    def product(self) -> str:
        return self._fresh(lambda: f"{self._stem()}{self.rng.choice(['', ' X', ' 2', ' Pro', ' One', ' Max'])}")

    def person(self) -> str:
        return self._fresh(lambda: f"{self.rng.choice(self.data['person_first'])} "
                                   f"{self.rng.choice(self.data['person_last'])}")


def _read(path: Path) -> Any:
    if not path.is_file():
        raise InputError(str(path), "file not found")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _draw(spec: Any, rng: random.Random) -> str:
    if isinstance(spec, list):
        return str(rng.choice(spec))
    low, high = spec["int"]
    value = rng.randrange(low, high + 1, spec.get("step", 1))
    return spec.get("format", "{}").format(value)


def _distractors(answer: str, draw, rng: random.Random) -> list[str]:
    out: list[str] = []
    for _ in range(1000):
        value = draw()
        if value.lower() != answer.lower() and value.lower() not in {v.lower() for v in out}:
            out.append(value)
        if len(out) == 3:
            return out
    raise InputError("environments/cf/ok_templates.yaml", f"cannot draw 3 distractors distinct from {answer!r}",
                     "a field with at least 4 distinct values")


def long_date(d: date) -> str:
    return f"{d:%B} {d.day}, {d.year}"


def _options(answer: str, distractors: list[str], key: int, rng: random.Random) -> list[str]:
    rest = list(distractors)
    rng.shuffle(rest)
    return rest[: key - 1] + [answer] + rest[key - 1:]


def _cell_keys(n: int, offset: int) -> list[int]:
    """Keyed positions of one domain x type cell, cycling from `offset` (balanced across cells)."""
    return [(offset + j) % 4 + 1 for j in range(n)]


def _heldout(n: int, fraction: float, rng: random.Random) -> set[int]:
    order = list(range(n))
    rng.shuffle(order)
    return set(order[: round(n * fraction)])


def _ok_items(domain: str, templates: list[dict], cfg: GeneratorConfig, rng: random.Random, names: Names,
              keys: list[int], cell: int) -> tuple[list[Article], list[Item]]:
    articles, items = [], []
    total = cfg.ok_per_domain + cfg.background_per_domain
    cued = set(range(round(cfg.ok_per_domain * cfg.cued_fraction)))
    order = list(range(cfg.ok_per_domain))
    rng.shuffle(order)
    cued = {order[i] for i in cued}
    heldout = _heldout(cfg.ok_per_domain, cfg.heldout_fraction, rng)
    for j in range(total):
        tpl = templates[j % len(templates)]
        day = cfg.cutoff + timedelta(days=rng.randint(1, cfg.window_days))
        values = {"company": names.company(), "product": names.product(), "person": names.person(),
                  "date": long_date(day), "year": str(day.year)}
        values |= {k: _draw(spec, rng) for k, spec in tpl.get("fields", {}).items()}
        fill = lambda text: text.format(**values)  # noqa: E731
        slug = f"{tpl['id']}-{j:02d}"
        url = f"https://news.example/{domain}/{day.isoformat()}/{slug}"
        articles.append(Article(id=f"{domain}-{slug}", title=fill(tpl["title"]), date=day.isoformat(), url=url,
                                text=fill(tpl["article"]).strip(), domain=domain))
        if j >= cfg.ok_per_domain:
            continue
        field = tpl["answer"]
        answer = values[field]
        draw = getattr(names, field) if field in BUILTIN_NAMES else (lambda: _draw(tpl["fields"][field], rng))
        key = keys[j]
        items.append(Item(
            id=f"cf-{domain}-ok-{j:02d}", question=fill(tpl["cued" if j in cued else "uncued"]),
            options=_options(answer, _distractors(answer, draw, rng), key, rng), key=key, type="OK",
            domain=domain, source=url, rationale=fill(tpl["rationale"]),
            split="heldout" if j in heldout else "search", query=fill(tpl["query"])))
    return articles, items


def _ik_items(domain: str, bank: list[dict], cfg: GeneratorConfig, rng: random.Random, keys: list[int]) -> list[Item]:
    if len(bank) < cfg.ik_per_domain:
        raise InputError("environments/cf/ik_bank.yaml", f"{domain}: {len(bank)} facts, {cfg.ik_per_domain} needed",
                         "ik_per_domain <= the bank's size")
    chosen = rng.sample(range(len(bank)), cfg.ik_per_domain)
    heldout = _heldout(cfg.ik_per_domain, cfg.heldout_fraction, rng)
    items = []
    for j, idx in enumerate(chosen):
        fact = bank[idx]
        items.append(Item(id=f"cf-{domain}-ik-{j:02d}", question=fact["q"],
                          options=_options(fact["a"], list(fact["d"]), keys[j], rng), key=keys[j], type="IK",
                          domain=domain, rationale=fact["r"], split="heldout" if j in heldout else "search"))
    return items


def build(config_dir: str | Path = CONFIG_DIR, **overrides: Any) -> BuiltinSuite:
    """The built-in corpus and items (the same on every machine for the same config)."""
    config_dir = Path(config_dir)
    base = load_file(GeneratorConfig, config_dir / "generator.yaml")
    cfg = GeneratorConfig.model_validate({**base.model_dump(), **overrides})
    templates, bank, name_data = (_read(config_dir / f) for f in ("ok_templates.yaml", "ik_bank.yaml", "names.yaml"))
    rng = random.Random(cfg.seed)
    names = Names(rng, name_data)
    articles: list[Article] = []
    items: list[Item] = []
    for d, domain in enumerate(DOMAINS):
        for source, data in (("ok_templates.yaml", templates), ("ik_bank.yaml", bank)):
            if domain not in (data or {}):
                raise InputError(str(config_dir / source), f"no entry for domain {domain!r}", f"all of {DOMAINS}")
        new_articles, ok = _ok_items(domain, templates[domain], cfg, rng, names,
                                     _cell_keys(cfg.ok_per_domain, 2 * (2 * d)), 2 * d)
        articles += new_articles
        items += ok
        items += _ik_items(domain, bank[domain], cfg, rng, _cell_keys(cfg.ik_per_domain, 2 * (2 * d + 1)))
    return BuiltinSuite(cfg, tuple(articles), tuple(items))
