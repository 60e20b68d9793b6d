#!/bin/bash
set -euo pipefail
python3 - <<'PY'
def read(path):
    values = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values
merged = read("/app/env/defaults.env")
merged.update(read("/app/env/overrides.env"))
with open("/app/env/final.env", "w") as fh:
    fh.writelines(f"{k}={merged[k]}\n" for k in sorted(merged))
PY
