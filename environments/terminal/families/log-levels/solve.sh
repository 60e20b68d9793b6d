#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import glob, json, os
report = {}
for path in sorted(glob.glob("/app/logs/*.log")):
    counts = {"ERROR": 0, "WARNING": 0}
    for line in open(path):
        parts = line.split()
        if len(parts) > 1 and parts[1] in counts:
            counts[parts[1]] += 1
    report[os.path.basename(path)[:-4]] = counts
json.dump(report, open("/app/report.json", "w"), indent=2, sort_keys=True)
PY
