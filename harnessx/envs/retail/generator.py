"""A deterministic, seeded generator of retail databases in the τ² schema.

Its inputs live in `environments/retail/`: `generator.yaml` (seed, sizes, shape), `catalog.yaml`
(product types and option dimensions) and `people.yaml` (names and places). The same files always
give the same database.
"""

from __future__ import annotations

import itertools
import random
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harnessx.envs.retail.schema import (Address, CreditCard, Fulfillment, GiftCard, Order, OrderItem,
                                         Payment, Paypal, Product, RetailDB, User, UserName, Variant)
from harnessx.errors import InputError
from harnessx.validation import load_file

CONFIG_DIR = Path(__file__).resolve().parents[3] / "environments" / "retail"


class Span(BaseModel):
    """An inclusive numeric range written as `[low, high]`."""

    low: float
    high: float

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, value):
        if isinstance(value, (list, tuple)) and len(value) == 2:
            return {"low": value[0], "high": value[1]}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> "Span":
        if self.low > self.high:
            raise ValueError("low is above high")
        return self


class GeneratorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: int = 2025
    n_products: int = Field(50, ge=1)
    n_users: int = Field(500, ge=1)
    n_orders: int = Field(1000, ge=0)
    variants_per_product: Span = Span(low=5, high=20)
    available_share: float = Field(0.65, ge=0, le=1)
    items_per_order: Span = Span(low=1, high=5)
    gift_card_balance: Span = Span(low=0, high=100)
    payment_methods_per_user: Span = Span(low=1, high=3)
    status_weights: dict[str, float] = Field(
        default_factory=lambda: {"pending": 42, "delivered": 37, "processed": 10, "cancelled": 11})

    @model_validator(mode="after")
    def _known_statuses(self) -> "GeneratorConfig":
        unknown = set(self.status_weights) - {"pending", "delivered", "processed", "cancelled"}
        if unknown:
            raise ValueError(f"status_weights: unknown status {sorted(unknown)}")
        return self


class CatalogEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    price: Span
    options: dict[str, list[str]] = Field(min_length=1)


class Catalog(BaseModel):
    products: list[CatalogEntry] = Field(min_length=1)


class City(BaseModel):
    city: str
    state: str
    zip: str = Field(pattern=r"^\d{3}$")


class People(BaseModel):
    first_names: list[str] = Field(min_length=1)
    last_names: list[str] = Field(min_length=1)
    streets: list[str] = Field(min_length=1)
    cities: list[City] = Field(min_length=1)
    card_brands: list[str] = Field(min_length=1)


class _Ids:
    """Unique random digit strings, shared across every kind of id."""

    def __init__(self, rng: random.Random):
        self.rng, self.used = rng, set()

    def new(self, digits: int) -> str:
        while True:
            value = "".join(self.rng.choice("0123456789") for _ in range(digits))
            if value[0] != "0" and value not in self.used:
                self.used.add(value)
                return value


def _span_int(rng: random.Random, span: Span) -> int:
    return rng.randint(int(span.low), int(span.high))


def _products(cfg: GeneratorConfig, catalog: Catalog, rng: random.Random, ids: _Ids) -> dict[str, Product]:
    if cfg.n_products > len(catalog.products):
        raise InputError("generator.yaml", f"n_products = {cfg.n_products} exceeds the catalog's "
                         f"{len(catalog.products)} product types")
    products = {}
    for entry in catalog.products[: cfg.n_products]:
        combos = list(itertools.product(*entry.options.values()))
        rng.shuffle(combos)
        count = min(len(combos), max(2, _span_int(rng, cfg.variants_per_product)))
        variants = {}
        for index, combo in enumerate(combos[:count]):
            item_id = ids.new(10)
            variants[item_id] = Variant(
                item_id=item_id, options=dict(zip(entry.options, combo)),
                available=index < 2 or rng.random() < cfg.available_share,
                price=round(rng.uniform(entry.price.low, entry.price.high), 2))
        product_id = ids.new(10)
        products[product_id] = Product(name=entry.name, product_id=product_id, variants=variants)
    return products


def random_address(people: People, rng: random.Random) -> Address:
    city = rng.choice(people.cities)
    return Address(address1=f"{rng.randint(1, 999)} {rng.choice(people.streets)}",
                   address2=f"Suite {rng.randint(100, 999)}", city=city.city, country="USA",
                   state=city.state, zip=f"{city.zip}{rng.randint(0, 99):02d}")


def _users(cfg: GeneratorConfig, people: People, rng: random.Random, ids: _Ids) -> dict[str, User]:
    users: dict[str, User] = {}
    seen: set[tuple[str, str, str]] = set()
    while len(users) < cfg.n_users:
        first, last = rng.choice(people.first_names), rng.choice(people.last_names)
        address = random_address(people, rng)
        if (first.lower(), last.lower(), address.zip) in seen:
            continue
        seen.add((first.lower(), last.lower(), address.zip))
        methods = {}
        sources = rng.sample(["credit_card", "gift_card", "paypal", "credit_card"],
                             _span_int(rng, cfg.payment_methods_per_user))
        for source in sources:
            method_id = f"{source}_{ids.new(7)}"
            if source == "credit_card":
                methods[method_id] = CreditCard(source=source, id=method_id, brand=rng.choice(people.card_brands),
                                                last_four=f"{rng.randint(0, 9999):04d}")
            elif source == "gift_card":
                methods[method_id] = GiftCard(source=source, id=method_id,
                                              balance=float(_span_int(rng, cfg.gift_card_balance)))
            else:
                methods[method_id] = Paypal(source=source, id=method_id)
        user_id = f"{first.lower()}_{last.lower()}_{ids.new(4)}"
        users[user_id] = User(user_id=user_id, name=UserName(first_name=first, last_name=last), address=address,
                              email=f"{first.lower()}.{last.lower()}{ids.new(4)}@example.com",
                              payment_methods=methods, orders=[])
    return users


def _orders(cfg: GeneratorConfig, products: dict[str, Product], users: dict[str, User],
            rng: random.Random, ids: _Ids) -> dict[str, Order]:
    statuses, weights = list(cfg.status_weights), list(cfg.status_weights.values())
    product_list, user_list = list(products.values()), list(users.values())
    orders = {}
    for _ in range(cfg.n_orders):
        user = rng.choice(user_list)
        items = []
        for _ in range(_span_int(rng, cfg.items_per_order)):
            product = rng.choice(product_list)
            variant = rng.choice(list(product.variants.values()))
            items.append(OrderItem(name=product.name, product_id=product.product_id, item_id=variant.item_id,
                                   price=variant.price, options=dict(variant.options)))
        status = rng.choices(statuses, weights)[0]
        total = round(sum(item.price for item in items), 2)
        method = rng.choice(list(user.payment_methods))
        history = [Payment(transaction_type="payment", amount=total, payment_method_id=method)]
        if status == "cancelled":
            history.append(Payment(transaction_type="refund", amount=total, payment_method_id=method))
        fulfillments = [] if status in ("pending", "cancelled") else [
            Fulfillment(tracking_id=[ids.new(12)], item_ids=[item.item_id for item in items])]
        order_id = f"#W{ids.new(7)}"
        orders[order_id] = Order(order_id=order_id, user_id=user.user_id, address=user.address.model_copy(),
                                 items=items, status=status, fulfillments=fulfillments, payment_history=history)
        user.orders.append(order_id)
    return orders


def generate(cfg: GeneratorConfig, catalog: Catalog, people: People) -> RetailDB:
    rng = random.Random(cfg.seed)
    ids = _Ids(rng)
    products = _products(cfg, catalog, rng, ids)
    users = _users(cfg, people, rng, ids)
    orders = _orders(cfg, products, users, rng, ids)
    return RetailDB(products=products, users=users, orders=orders)


def load_people(config_dir: str | Path = CONFIG_DIR) -> People:
    return load_file(People, Path(config_dir) / "people.yaml")


@lru_cache(maxsize=4)
def _generated(config_dir: str) -> RetailDB:
    root = Path(config_dir)
    return generate(load_file(GeneratorConfig, root / "generator.yaml"),
                    load_file(Catalog, root / "catalog.yaml"), load_people(root))


def generated_db(config_dir: str | Path = CONFIG_DIR) -> RetailDB:
    """The database described by `config_dir` (cached per folder; never mutate it)."""
    return _generated(str(Path(config_dir).resolve()))
