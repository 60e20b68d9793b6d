"""What the agent is told about the 16 retail tools: names, descriptions, JSON parameter schemas."""

from __future__ import annotations

from harnessx.envs.base import ToolSpec

_S = {"type": "string"}
_IDS = {"type": "array", "items": {"type": "string"}}
_ADDRESS = {"address1": _S, "address2": _S, "city": _S, "state": _S, "country": _S, "zip": _S}


def _spec(name: str, description: str, **properties: dict) -> ToolSpec:
    return ToolSpec(name=name, description=description,
                    parameters={"type": "object", "properties": properties, "required": list(properties)})


TOOL_SPECS: list[ToolSpec] = [
    _spec("calculate", "Evaluate an arithmetic expression (digits, + - * / ( ) . and spaces); "
          "the result is rounded to 2 decimals.", expression=_S),
    _spec("find_user_id_by_email", "Find a customer's user id from their email.", email=_S),
    _spec("find_user_id_by_name_zip", "Find a customer's user id from first name, last name and zip code.",
          first_name=_S, last_name=_S, zip=_S),
    _spec("get_user_details", "Get a customer's profile: name, address, email, payment methods, order ids.",
          user_id=_S),
    _spec("get_order_details", "Get an order's status, items, address, fulfillments and payments. "
          "Order ids look like '#W0000000'.", order_id=_S),
    _spec("get_product_details", "Get a product type and all its variant items (options, availability, "
          "price). Takes a product id, not an item id.", product_id=_S),
    _spec("get_item_details", "Get one variant item (options, availability, price) by its item id.", item_id=_S),
    _spec("list_all_product_types", "List every product type as a name -> product id mapping."),
    _spec("cancel_pending_order", "Cancel a pending order. Reason: 'no longer needed' or 'ordered by "
          "mistake'. Needs the customer's explicit confirmation.", order_id=_S, reason=_S),
    _spec("modify_pending_order_address", "Change the shipping address of a pending order. Needs the "
          "customer's explicit confirmation.", order_id=_S, **_ADDRESS),
    _spec("modify_pending_order_items", "Change items of a pending order to other available variants of "
          "the same products, paying or refunding the difference with one payment method. Can be done once "
          "per order. Needs the customer's explicit confirmation.", order_id=_S, item_ids=_IDS,
          new_item_ids=_IDS, payment_method_id=_S),
    _spec("modify_pending_order_payment", "Pay a pending order with a different payment method. Needs the "
          "customer's explicit confirmation.", order_id=_S, payment_method_id=_S),
    _spec("modify_user_address", "Change a customer's default address. Needs the customer's explicit "
          "confirmation.", user_id=_S, **_ADDRESS),
    _spec("return_delivered_order_items", "Request a return of items of a delivered order, refunded to the "
          "original payment method or a gift card. Needs the customer's explicit confirmation.",
          order_id=_S, item_ids=_IDS, payment_method_id=_S),
    _spec("exchange_delivered_order_items", "Request an exchange of items of a delivered order for other "
          "available variants of the same products; one payment method settles the difference. Can be done "
          "once per order. Needs the customer's explicit confirmation.", order_id=_S, item_ids=_IDS,
          new_item_ids=_IDS, payment_method_id=_S),
    _spec("transfer_to_human_agents", "Hand the customer to a human agent, with a summary of the issue. "
          "Only for requests outside what these tools can do.", summary=_S),
]
