#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import json, re
values = json.load(open("/app/templates/values.json"))
text = open("/app/templates/letter.txt").read()
open("/app/letter_rendered.txt", "w").write(re.sub(r"\[\[(\w+)\]\]", lambda m: values.get(m.group(1), m.group(0)), text))
PY
