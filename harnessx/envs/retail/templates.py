"""Feasible task templates over a retail database: each gives a customer request and its gold plan.

A template looks at one user and returns a `Draft` (or None when that user does not fit): the
request with the order named by id, the same request with the order only described (used by the
ambiguous variants), the gold tool calls and the parameters the blocked variants build on.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harnessx.envs.retail.schema import Address, GiftCard, Order, OrderItem, RetailDB, User
from harnessx.tasks import ToolCall

WRITE_TEMPLATES = ("cancel", "return", "exchange", "modify_items", "modify_address", "modify_payment",
                   "user_address")
TEMPLATES = WRITE_TEMPLATES + ("info",)


@dataclass
class Draft:
    template: str
    user: User
    order: Order | None
    request: str                       # names the order by id
    vague_request: str                 # describes the order instead of naming it
    actions: list[ToolCall]
    params: dict[str, Any] = field(default_factory=dict)
    final_answer: str | None = None

    @property
    def write(self) -> ToolCall | None:
        return self.actions[-1] if self.template in WRITE_TEMPLATES else None


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def describe_options(options: dict[str, str]) -> str:
    return ", ".join(f"{key} {value}" for key, value in options.items())


def describe_item(item: OrderItem) -> str:
    return f"{item.name} ({describe_options(item.options)})"


def describe_payment(user: User, method_id: str) -> str:
    method = user.payment_methods[method_id]
    if method.source == "credit_card":
        return f"my {method.brand} credit card ending in {method.last_four}"
    if method.source == "paypal":
        return "my PayPal account"
    return f"my gift card {method_id}"


def describe_address(address: Address) -> str:
    return f"{address.address1}, {address.address2}, {address.city}, {address.state} {address.zip}, {address.country}"


def identity_call(user: User, by_email: bool) -> ToolCall:
    if by_email:
        return call("find_user_id_by_email", email=user.email)
    return call("find_user_id_by_name_zip", first_name=user.name.first_name, last_name=user.name.last_name,
                zip=user.address.zip)


def identity_text(user: User, by_email: bool) -> str:
    if by_email:
        return f"My email is {user.email}."
    return f"I'm {user.name.first_name} {user.name.last_name}, zip code {user.address.zip}."


def _orders(db: RetailDB, user: User, status: str) -> list[Order]:
    return [db.orders[o] for o in user.orders if o in db.orders and db.orders[o].status == status]


def _vague(order: Order, item: OrderItem) -> str:
    state = {"pending": "pending", "delivered": "delivered"}.get(order.status, order.status)
    return f"my {state} order with the {item.name}"


def _pick_order(db: RetailDB, user: User, status: str, rng: random.Random) -> Order | None:
    orders = _orders(db, user, status)
    return rng.choice(orders) if orders else None


def _gift_cards(user: User, at_least: float) -> list[str]:
    return [m.id for m in user.payment_methods.values() if isinstance(m, GiftCard) and m.balance >= at_least]


def _payer(user: User, amount: float, rng: random.Random, gift_card: bool, exclude: str = "") -> str | None:
    """A payment method that can cover `amount`; a gift card when `gift_card` is asked for."""
    cards = [m for m in _gift_cards(user, amount) if m != exclude]
    if gift_card:
        return rng.choice(cards) if cards and amount > 0 else None
    others = [m for m in user.payment_methods if not m.startswith("gift_card") and m != exclude]
    return rng.choice(others + cards) if others + cards else None


def _swap(db: RetailDB, order: Order, rng: random.Random, gift_card: bool):
    """(item, new variant, payer) for an exchange or item change, or None."""
    user = db.users[order.user_id]
    items = list(order.items)
    rng.shuffle(items)
    for item in items:
        product = db.products[item.product_id]
        choices = [v for v in product.variants.values() if v.available and v.item_id != item.item_id]
        if not choices:
            continue
        new = rng.choice(choices)
        payer = _payer(user, round(new.price - item.price, 2), rng, gift_card)
        if payer is not None:
            return item, new, payer
    return None


def cancel(db: RetailDB, user: User, rng: random.Random, gift_card: bool) -> Draft | None:
    order = _pick_order(db, user, "pending", rng)
    if order is None:
        return None
    reason = rng.choice(["no longer needed", "ordered by mistake"])
    why = "I no longer need it" if reason == "no longer needed" else "I ordered it by mistake"
    text = "Please cancel {ref} because " + why + "."
    return Draft("cancel", user, order, text.format(ref=f"order {order.order_id}"),
                 text.format(ref=_vague(order, order.items[0])),
                 [call("get_order_details", order_id=order.order_id),
                  call("cancel_pending_order", order_id=order.order_id, reason=reason)],
                 {"item": order.items[0], "reason": reason})


def return_items(db: RetailDB, user: User, rng: random.Random, gift_card: bool) -> Draft | None:
    order = _pick_order(db, user, "delivered", rng)
    if order is None:
        return None
    original = order.payment_history[0].payment_method_id
    payer = _payer(user, 0.0, rng, True) if gift_card else original
    if payer is None:
        return None
    items = rng.sample(order.items, min(len(order.items), rng.randint(1, 2)))
    names = " and the ".join(describe_item(i) for i in items)
    text = f"I want to return the {names} from {{ref}}. Please refund {describe_payment(user, payer)}."
    return Draft("return", user, order, text.format(ref=f"order {order.order_id}"),
                 text.format(ref=_vague(order, items[0])),
                 [call("get_order_details", order_id=order.order_id),
                  call("return_delivered_order_items", order_id=order.order_id,
                       item_ids=[i.item_id for i in items], payment_method_id=payer)],
                 {"item": items[0], "items": items, "payer": payer})


def _swap_draft(template: str, status: str, tool: str, wording: str):
    def build(db: RetailDB, user: User, rng: random.Random, gift_card: bool) -> Draft | None:
        order = _pick_order(db, user, status, rng)
        swap = _swap(db, order, rng, gift_card) if order else None
        if swap is None:
            return None
        item, new, payer = swap
        text = wording.format(item=describe_item(item), new="{new}", pay=describe_payment(user, payer), ref="{ref}")
        full = f"the same item with {describe_options(new.options)}"
        return Draft(template, user, order, text.format(ref=f"order {order.order_id}", new=full),
                     text.format(ref=_vague(order, item), new=full),
                     [call("get_order_details", order_id=order.order_id),
                      call("get_product_details", product_id=item.product_id),
                      call(tool, order_id=order.order_id, item_ids=[item.item_id], new_item_ids=[new.item_id],
                           payment_method_id=payer)],
                     {"item": item, "new": new, "payer": payer, "wording": text,
                      "diff": round(new.price - item.price, 2)})
    return build


exchange = _swap_draft("exchange", "delivered", "exchange_delivered_order_items",
                       "I received {ref} and want to exchange the {item} for {new}. "
                       "Use {pay} for any price difference. That is the only item I want to exchange.")
modify_items = _swap_draft("modify_items", "pending", "modify_pending_order_items",
                           "For {ref}, please change the {item} to {new}. Use {pay} for any price "
                           "difference. That is the only item I want to change.")


def modify_address(db: RetailDB, user: User, rng: random.Random, gift_card: bool, new_address: Address | None = None
                   ) -> Draft | None:
    order = _pick_order(db, user, "pending", rng)
    if order is None or new_address is None:
        return None
    text = f"Please change the shipping address of {{ref}} to {describe_address(new_address)}."
    return Draft("modify_address", user, order, text.format(ref=f"order {order.order_id}"),
                 text.format(ref=_vague(order, order.items[0])),
                 [call("get_order_details", order_id=order.order_id),
                  call("modify_pending_order_address", order_id=order.order_id, **new_address.model_dump())],
                 {"item": order.items[0], "address": new_address})


def modify_payment(db: RetailDB, user: User, rng: random.Random, gift_card: bool) -> Draft | None:
    orders = [o for o in _orders(db, user, "pending") if len(o.payment_history) == 1]
    if not orders:
        return None
    order = rng.choice(orders)
    current, amount = order.payment_history[0].payment_method_id, order.payment_history[0].amount
    payer = _payer(user, amount, rng, gift_card, exclude=current)
    if payer is None:
        return None
    text = f"Please switch the payment of {{ref}} to {describe_payment(user, payer)}."
    return Draft("modify_payment", user, order, text.format(ref=f"order {order.order_id}"),
                 text.format(ref=_vague(order, order.items[0])),
                 [call("get_order_details", order_id=order.order_id),
                  call("modify_pending_order_payment", order_id=order.order_id, payment_method_id=payer)],
                 {"item": order.items[0], "payer": payer, "diff": amount})


def user_address(db: RetailDB, user: User, rng: random.Random, gift_card: bool, new_address: Address | None = None
                 ) -> Draft | None:
    if new_address is None:
        return None
    text = f"Please update my default address to {describe_address(new_address)}."
    return Draft("user_address", user, None, text, text,
                 [call("get_user_details", user_id=user.user_id),
                  call("modify_user_address", user_id=user.user_id, **new_address.model_dump())],
                 {"address": new_address})


def info(db: RetailDB, user: User, rng: random.Random, gift_card: bool) -> Draft | None:
    orders = [db.orders[o] for o in user.orders if o in db.orders]
    if not orders:
        return None
    order = rng.choice(orders)
    paid = round(sum(p.amount for p in order.payment_history if p.transaction_type == "payment"), 2)
    text = "What is the status of {ref}, and how much was paid for it?"
    return Draft("info", user, order, text.format(ref=f"order {order.order_id}"),
                 text.format(ref=_vague(order, order.items[0])),
                 [call("get_order_details", order_id=order.order_id)], {"item": order.items[0]},
                 final_answer=f"Order {order.order_id} is {order.status}; {paid:.2f} was paid.")


BUILDERS: dict[str, Callable[..., Draft | None]] = {
    "cancel": cancel, "return": return_items, "exchange": exchange, "modify_items": modify_items,
    "modify_address": modify_address, "modify_payment": modify_payment, "user_address": user_address,
    "info": info}
ADDRESS_TEMPLATES = ("modify_address", "user_address")
