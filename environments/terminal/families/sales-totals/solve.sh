#!/bin/bash
set -euo pipefail
mkdir -p /app/out
python3 - <<'PY'
import csv
from decimal import Decimal
totals = {}
with open("/app/data/sales.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        totals[row["region"]] = totals.get(row["region"], Decimal(0)) + int(row["units"]) * Decimal(row["unit_price"])
with open("/app/out/region_totals.csv", "w", newline="") as fh:
    out = csv.writer(fh, lineterminator="\n")
    out.writerow(["region", "revenue"])
    for region in sorted(totals):
        out.writerow([region, f"{totals[region]:.2f}"])
PY
