"""The scoring figure docs/scoring.md quotes: the acting-on-the-blocker generators over every data set.

Runs the acting generators (all of BFCL's miss_param and miss_func entries, every blocked task of the
retail, starter and terminal suites, the FeasiGen suites built from retail and BFCL, and the MCP
example suite) with $HARNESSX_ACTING_TALLY
set, and renders their tallies: per data set and class, the episodes checked and how many were
credited (strict or relaxed SA; 0 is the claim), and the proper deferrals credited.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ("tests/test_acting_bfcl.py", "tests/test_acting_envs.py", "tests/test_acting_feasigen.py", "tests/test_acting_mcp.py")
COMMAND = "python -m pytest " + " ".join(TESTS)


def acting_generators(w) -> str:
    tally_file = Path(w.path) / "acting-tally.jsonl"
    tally_file.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HARNESSX_ACTING_TALLY": str(tally_file)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "slow or not slow", *TESTS],
                          cwd=ROOT, env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"figures: `{COMMAND}` failed:\n{proc.stdout[-3000:]}")
    rows = [json.loads(line) for line in tally_file.read_text(encoding="utf-8").splitlines()]
    lines = ["| data set | blocked tasks | failure classes (episodes checked / credited) | proper deferral credited |",
             "|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: r["set"]):
        tally = row["tally"]
        classes = ", ".join(f"{k} {v['checked']}/{v.get('credited', 0)}" for k, v in tally.items() if k != "proper")
        proper = tally.get("proper", {})
        lines.append(f"| {row['set']} | {row['tasks']} | {classes} | {proper.get('credited', 0)}/{proper.get('checked', 0)} |")
    checked = sum(v["checked"] for r in rows for k, v in r["tally"].items() if k != "proper")
    credited = sum(v.get("credited", 0) for r in rows for k, v in r["tally"].items() if k != "proper")
    lines.append(f"\n{checked:,} failure-class episodes, {credited} credited.")
    return "\n".join(lines)
