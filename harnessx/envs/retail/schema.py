"""The retail data model (τ²-bench retail schema): products with variants, users, orders.

Field order follows τ²'s models so that serialised records read the same; unknown keys are
rejected. Orders carry seven optional fields that only the write tools set.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

OrderStatus = Literal["processed", "pending", "pending (item modified)", "delivered", "cancelled",
                      "exchange requested", "return requested"]
CANCEL_REASONS = ("no longer needed", "ordered by mistake")


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Variant(Record):
    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(Record):
    name: str
    product_id: str
    variants: dict[str, Variant]


class UserName(Record):
    first_name: str
    last_name: str


class Address(Record):
    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class CreditCard(Record):
    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class Paypal(Record):
    source: Literal["paypal"]
    id: str


class GiftCard(Record):
    source: Literal["gift_card"]
    id: str
    balance: float


PaymentMethod = Annotated[Union[CreditCard, Paypal, GiftCard], Field(discriminator="source")]


class User(Record):
    user_id: str
    name: UserName
    address: Address
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


class OrderItem(Record):
    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class Fulfillment(Record):
    tracking_id: list[str]
    item_ids: list[str]


class Payment(Record):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Order(Record):
    order_id: str
    user_id: str
    address: Address
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[Fulfillment]
    payment_history: list[Payment]
    cancel_reason: Literal["no longer needed", "ordered by mistake"] | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(Record):
    products: dict[str, Product]
    users: dict[str, User]
    orders: dict[str, Order]


TABLES = {"products": Product, "users": User, "orders": Order}
