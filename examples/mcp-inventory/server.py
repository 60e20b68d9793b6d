"""A small inventory-and-orders MCP server (stdio), the example of `--env mcp`.

Read-only tools (annotated `readOnlyHint`): list_items, get_item, get_order, and check_item, the
checking call the task file's `success.call` uses. State-changing tools: restock, set_price,
place_order, cancel_order, set_status. The state lives in this process, so every episode (a fresh
process) starts from the same stock below. Run it alone with `python server.py` (it speaks MCP on
stdin/stdout), or `python server.py --http 8000` (Streamable HTTP at http://127.0.0.1:8000/mcp; one
state for every client, so only for trying it).
"""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

READ = ToolAnnotations(readOnlyHint=True)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False)

ITEMS = {
    "LMP-1": ("desk lamp (black)", 12, 24.0), "LMP-2": ("desk lamp (white)", 3, 24.0),
    "CHR-1": ("office chair", 5, 149.0), "DSK-1": ("standing desk", 2, 399.0),
    "MON-1": ("27-inch monitor", 8, 229.0), "KBD-1": ("mechanical keyboard", 15, 89.0),
    "MSE-1": ("wireless mouse", 30, 25.0), "CAB-1": ("usb-c cable", 100, 9.0),
    "HDP-1": ("headphones", 7, 79.0), "WEB-1": ("webcam", 4, 59.0),
    "MIC-1": ("desk microphone", 6, 99.0), "HUB-1": ("usb hub", 20, 29.0),
    "MAT-1": ("mouse mat", 40, 12.0), "STD-1": ("monitor stand", 9, 45.0),
    "BAG-1": ("laptop bag", 11, 65.0), "PEN-1": ("stylus pen", 25, 35.0),
    "SPK-1": ("desk speakers", 6, 69.0), "DOC-1": ("docking station", 3, 189.0),
    "LGT-1": ("ring light", 5, 39.0), "FAN-1": ("desk fan", 14, 22.0),
}
STATUSES = ("active", "recalled", "discontinued")

stock = {sku: {"sku": sku, "name": name, "stock": n, "price": price, "status": "active"}
         for sku, (name, n, price) in ITEMS.items()}
orders: dict[str, dict] = {"O-100": {"order_id": "O-100", "sku": "CHR-1", "quantity": 1, "customer": "ana", "status": "open"},
                           "O-101": {"order_id": "O-101", "sku": "MON-1", "quantity": 2, "customer": "ben", "status": "open"},
                           "O-102": {"order_id": "O-102", "sku": "KBD-1", "quantity": 1, "customer": "cy", "status": "shipped"},
                           "O-103": {"order_id": "O-103", "sku": "HDP-1", "quantity": 1, "customer": "dee", "status": "open"}}
server = FastMCP("inventory", instructions="An inventory of office equipment and its customer orders.")


def item(sku: str) -> dict:
    if sku not in stock:
        raise ValueError(f"no item with sku {sku}")
    return stock[sku]


@server.tool(annotations=READ)
def list_items() -> list[dict]:
    """List every item: its sku, name and units in stock."""
    return [{"sku": i["sku"], "name": i["name"], "stock": i["stock"]} for i in stock.values()]


@server.tool(annotations=READ)
def get_item(sku: str) -> dict:
    """Look up one item by sku: name, units in stock, price and status (active, recalled, discontinued)."""
    return dict(item(sku))


@server.tool(annotations=READ)
def get_order(order_id: str) -> dict:
    """Look up one customer order by id."""
    if order_id not in orders:
        raise ValueError(f"no order with id {order_id}")
    return dict(orders[order_id])


@server.tool(annotations=READ)
def check_item(sku: str) -> dict:
    """Audit one item: stock, price, status and how many open orders name it."""
    found = item(sku)
    open_orders = sum(o["sku"] == sku and o["status"] == "open" for o in orders.values())
    return {"sku": sku, "stock": found["stock"], "price": found["price"], "status": found["status"],
            "open_orders": open_orders}


@server.tool(annotations=WRITE)
def restock(sku: str, quantity: int) -> str:
    """Add units of an item to the stock."""
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    item(sku)["stock"] += quantity
    return f"{sku}: stock is now {stock[sku]['stock']}"


@server.tool(annotations=WRITE)
def set_price(sku: str, price: float) -> str:
    """Change the unit price of an item."""
    if price <= 0:
        raise ValueError("price must be positive")
    item(sku)["price"] = price
    return f"{sku}: price is now {price:g}"


@server.tool(annotations=WRITE)
def place_order(sku: str, quantity: int, customer: str) -> str:
    """Order units of an item for a customer; the units leave the stock."""
    found = item(sku)
    if not 0 < quantity <= found["stock"]:
        raise ValueError(f"cannot order {quantity} of {sku}: {found['stock']} in stock")
    order_id = f"O-{100 + len(orders)}"
    found["stock"] -= quantity
    orders[order_id] = {"order_id": order_id, "sku": sku, "quantity": quantity, "customer": customer, "status": "open"}
    return f"placed {order_id}"


@server.tool(annotations=WRITE)
def cancel_order(order_id: str) -> str:
    """Cancel an open order; its units go back to the stock."""
    order = orders.get(order_id)
    if order is None or order["status"] != "open":
        raise ValueError(f"no open order with id {order_id}")
    order["status"] = "cancelled"
    stock[order["sku"]]["stock"] += order["quantity"]
    return f"cancelled {order_id}"


@server.tool(annotations=WRITE)
def set_status(sku: str, status: str) -> str:
    """Mark an item active, recalled or discontinued."""
    if status not in STATUSES:
        raise ValueError(f"status must be one of {', '.join(STATUSES)}")
    item(sku)["status"] = status
    return f"{sku}: status is now {status}"


if __name__ == "__main__":
    import sys

    if "--http" in sys.argv:  # Streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio
        server.settings.port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run(transport="streamable-http")
    else:
        server.run()
