#!/bin/bash
set -euo pipefail
python3 - <<'PY'
src, dst = open("/app/examples.txt").readline().rstrip("\n").split(" -> ")
shift = next((ord(b) - ord(a)) % 26 for a, b in zip(src, dst) if a.isalpha())
open("/app/solution.py", "w").write(f'''
def {{func}}(text: str) -> str:
    out = []
    for ch in text:
        if ch.isalpha() and ch.isascii():
            base = ord("a") if ch.islower() else ord("A")
            out.append(chr((ord(ch) - base + {shift}) % 26 + base))
        else:
            out.append(ch)
    return "".join(out)
''')
PY
