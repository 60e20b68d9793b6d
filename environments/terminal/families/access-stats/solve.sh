#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import json
from collections import Counter
ips, status = Counter(), Counter()
for line in open("/app/access.log"):
    parts = line.split()
    if len(parts) >= 9:
        ips[parts[0]] += 1
        status[parts[8]] += 1
best = max(ips.values())
top = min(ip for ip, n in ips.items() if n == best)
json.dump({"requests": sum(ips.values()), "status": dict(status), "top_ip": top}, open("/app/stats.json", "w"))
PY
