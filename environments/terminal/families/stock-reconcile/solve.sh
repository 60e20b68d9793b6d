#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import csv
stock = {r["sku"]: int(r["qty"]) for r in csv.DictReader(open("/app/inventory/stock.csv", newline=""))}
for r in csv.DictReader(open("/app/inventory/orders.csv", newline="")):
    stock[r["sku"]] -= int(r["qty"])
with open("/app/inventory/remaining.csv", "w", newline="") as fh:
    out = csv.writer(fh, lineterminator="\n")
    out.writerow(["sku", "qty"])
    for sku in sorted(stock):
        out.writerow([sku, stock[sku]])
PY
