"""The 16 retail tools with τ²-bench's semantics: preconditions, check order, error texts, effects.

Each tool raises `ValueError` with τ²'s message when a precondition fails and returns either a
string or a record. One deliberate difference: `modify_pending_order_items` gives every modified
item its own new variant's price and options (τ² writes the last variant's into all of them).
"""

from __future__ import annotations

import json

from harnessx.envs.retail.calculator import calculate
from harnessx.envs.retail.schema import (CANCEL_REASONS, Address, GiftCard, Order, Payment, Product,
                                         User, Variant)
from harnessx.envs.retail.store import Store

READ_TOOLS = ("find_user_id_by_email", "find_user_id_by_name_zip", "get_user_details", "get_order_details",
              "get_product_details", "get_item_details", "list_all_product_types")
WRITE_TOOLS = ("cancel_pending_order", "modify_pending_order_address", "modify_pending_order_items",
               "modify_pending_order_payment", "modify_user_address", "return_delivered_order_items",
               "exchange_delivered_order_items")
GENERIC_TOOLS = ("calculate", "transfer_to_human_agents")
TOOL_NAMES = READ_TOOLS + WRITE_TOOLS + GENERIC_TOOLS
# (required status, wrong-status, missing-item and count-mismatch messages) per kind of item swap
_SWAP_TEXT = {
    "modify": ("pending", "Non-pending order cannot be modified", "{item_id} not found",
               "The number of items to be exchanged should match"),
    "exchange": ("delivered", "Non-delivered order cannot be exchanged", "Number of {item_id} not found.",
                 "The number of items to be exchanged should match."),
}


class RetailTools:
    """The tools over one episode's store. Method names and parameters are the tool interface."""

    def __init__(self, store: Store):
        self.db = store

    # --- lookups shared by the tools ---------------------------------------------------------
    def _order(self, order_id: str) -> Order:
        if self.db.order(order_id) is None:
            raise ValueError("Order not found")
        return self.db.order(order_id)

    def _user(self, user_id: str) -> User:
        if self.db.user(user_id) is None:
            raise ValueError("User not found")
        return self.db.user(user_id)

    def _product(self, product_id: str) -> Product:
        if self.db.product(product_id) is None:
            raise ValueError("Product not found")
        return self.db.product(product_id)

    def _variant(self, product_id: str, item_id: str) -> Variant:
        variants = self._product(product_id).variants
        if item_id not in variants:
            raise ValueError("Variant not found")
        return variants[item_id]

    def _payment_method(self, user_id: str, method_id: str):
        methods = self._user(user_id).payment_methods
        if method_id not in methods:
            raise ValueError("Payment method not found")
        return methods[method_id]

    def _edit_gift_card(self, user_id: str, method_id: str, delta: float) -> None:
        card = self.db.edit("users", user_id).payment_methods[method_id]
        if isinstance(card, GiftCard):
            card.balance = round(card.balance + delta, 2)

    @staticmethod
    def _check_counts(order: Order, item_ids: list[str], message: str) -> None:
        present = [item.item_id for item in order.items]
        for item_id in item_ids:
            if item_ids.count(item_id) > present.count(item_id):
                raise ValueError(message.format(item_id=item_id))

    def _swap(self, kind: str, order_id: str, item_ids: list[str], new_item_ids: list[str]
              ) -> tuple[Order, list[Variant], float]:
        """Checks shared by item changes and exchanges (in τ²'s order, with τ²'s wording for each).

        Returns the order, the new variant for each pair and the summed price difference (unrounded).
        """
        status, wrong_status, missing, mismatch = _SWAP_TEXT[kind]
        order = self._order(order_id)
        if order.status != status:
            raise ValueError(wrong_status)
        self._check_counts(order, item_ids, missing)
        if len(item_ids) != len(new_item_ids):
            raise ValueError(mismatch)
        variants, diff = [], 0  # an int, as τ²'s sum starts: an empty exchange records 0, not 0.0
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            if kind == "modify" and item_id == new_item_id:
                raise ValueError("The new item id should be different from the old item id")
            item = next(i for i in order.items if i.item_id == item_id)
            variant = self._variant(item.product_id, new_item_id)
            if not variant.available:
                raise ValueError(f"New item {new_item_id} not found or available")
            variants.append(variant)
            diff += variant.price - item.price
        return order, variants, diff

    # --- generic -------------------------------------------------------------------------------
    def calculate(self, expression: str) -> str:
        return calculate(expression)

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    # --- reads ---------------------------------------------------------------------------------
    def find_user_id_by_email(self, email: str) -> str:
        for user in self.db.records("users"):
            if user.email.lower() == email.lower():
                return user.user_id
        raise ValueError("User not found")

    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        for user in self.db.records("users"):
            if (user.name.first_name.lower() == first_name.lower()
                    and user.name.last_name.lower() == last_name.lower() and user.address.zip == zip):
                return user.user_id
        raise ValueError("User not found")

    def get_user_details(self, user_id: str) -> User:
        return self._user(user_id)

    def get_order_details(self, order_id: str) -> Order:
        return self._order(order_id)

    def get_product_details(self, product_id: str) -> Product:
        return self._product(product_id)

    def get_item_details(self, item_id: str) -> Variant:
        for product in self.db.records("products"):
            if item_id in product.variants:
                return product.variants[item_id]
        raise ValueError("Item not found")

    def list_all_product_types(self) -> str:
        return json.dumps({p.name: p.product_id for p in self.db.records("products")}, sort_keys=True)

    # --- writes --------------------------------------------------------------------------------
    def cancel_pending_order(self, order_id: str, reason: str) -> Order:
        order = self._order(order_id)
        if order.status != "pending":
            raise ValueError("Non-pending order cannot be cancelled")
        if reason not in CANCEL_REASONS:
            raise ValueError("Invalid reason")
        for payment in order.payment_history:
            self._payment_method(order.user_id, payment.payment_method_id)
        order = self.db.edit("orders", order_id)
        refunds = [Payment(transaction_type="refund", amount=p.amount, payment_method_id=p.payment_method_id)
                   for p in order.payment_history]
        for refund in refunds:
            self._edit_gift_card(order.user_id, refund.payment_method_id, refund.amount)
        order.status, order.cancel_reason = "cancelled", reason
        order.payment_history.extend(refunds)
        return order

    def modify_pending_order_address(self, order_id: str, address1: str, address2: str, city: str,
                                     state: str, country: str, zip: str) -> Order:
        if "pending" not in self._order(order_id).status:
            raise ValueError("Non-pending order cannot be modified")
        order = self.db.edit("orders", order_id)
        order.address = Address(address1=address1, address2=address2, city=city, country=country,
                                state=state, zip=zip)
        return order

    def modify_pending_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                   payment_method_id: str) -> Order:
        order, variants, diff = self._swap("modify", order_id, item_ids, new_item_ids)
        method = self._payment_method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < diff:
            raise ValueError("Insufficient gift card balance to pay for the new item")
        order = self.db.edit("orders", order_id)
        order.payment_history.append(Payment(transaction_type="payment" if diff > 0 else "refund",
                                             amount=abs(diff), payment_method_id=payment_method_id))
        self._edit_gift_card(order.user_id, payment_method_id, -diff)
        for item_id, variant in zip(item_ids, variants):
            item = next(i for i in order.items if i.item_id == item_id)
            item.item_id, item.price, item.options = variant.item_id, variant.price, dict(variant.options)
        order.status = "pending (item modified)"
        return order

    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> Order:
        order = self._order(order_id)
        if "pending" not in order.status:
            raise ValueError("Non-pending order cannot be modified")
        method = self._payment_method(order.user_id, payment_method_id)
        history = order.payment_history
        if len(history) != 1 or history[0].transaction_type != "payment":
            raise ValueError("There should be exactly one payment for a pending order")
        old_id, amount = history[0].payment_method_id, history[0].amount
        if old_id == payment_method_id:
            raise ValueError("The new payment method should be different from the current one")
        if isinstance(method, GiftCard) and method.balance < amount:
            raise ValueError("Insufficient gift card balance to pay for the order")
        order = self.db.edit("orders", order_id)
        order.payment_history.extend([
            Payment(transaction_type="payment", amount=amount, payment_method_id=payment_method_id),
            Payment(transaction_type="refund", amount=amount, payment_method_id=old_id)])
        self._edit_gift_card(order.user_id, payment_method_id, -amount)
        self._edit_gift_card(order.user_id, old_id, amount)
        return order

    def modify_user_address(self, user_id: str, address1: str, address2: str, city: str, state: str,
                            country: str, zip: str) -> User:
        self._user(user_id)
        user = self.db.edit("users", user_id)
        user.address = Address(address1=address1, address2=address2, city=city, country=country,
                               state=state, zip=zip)
        return user

    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> Order:
        order = self._order(order_id)
        if order.status != "delivered":
            raise ValueError("Non-delivered order cannot be returned")
        method = self._payment_method(order.user_id, payment_method_id)
        if not isinstance(method, GiftCard) and payment_method_id != order.payment_history[0].payment_method_id:
            raise ValueError("Payment method should be the original payment method")
        self._check_counts(order, item_ids, "Some item not found")
        order = self.db.edit("orders", order_id)
        order.status = "return requested"
        order.return_items, order.return_payment_method_id = sorted(item_ids), payment_method_id
        return order

    def exchange_delivered_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                       payment_method_id: str) -> Order:
        order, _, diff = self._swap("exchange", order_id, item_ids, new_item_ids)
        diff = round(diff, 2)
        method = self._payment_method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < diff:
            raise ValueError("Insufficient gift card balance to pay for the price difference")
        order = self.db.edit("orders", order_id)
        order.status = "exchange requested"
        order.exchange_items, order.exchange_new_items = sorted(item_ids), sorted(new_item_ids)
        order.exchange_payment_method_id, order.exchange_price_difference = payment_method_id, diff
        return order
