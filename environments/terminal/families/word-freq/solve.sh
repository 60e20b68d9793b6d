#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import glob, re
from collections import Counter
counts = Counter()
for path in glob.glob("/app/corpus/*.txt"):
    counts.update(re.findall(r"[a-z]+", open(path).read().lower()))
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:{{n}}]
open("/app/top_words.txt", "w").writelines(f"{w} {c}\n" for w, c in top)
PY
