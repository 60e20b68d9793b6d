#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import csv, json
users = json.load(open("/app/users.json"))
keep = sorted((u for u in users if u["active"] and u["last_login"] >= "{{cutoff}}"), key=lambda u: u["id"])
with open("/app/active_users.csv", "w", newline="") as fh:
    out = csv.writer(fh, lineterminator="\n")
    out.writerow(["id", "email"])
    for u in keep:
        out.writerow([u["id"], u["email"]])
PY
