"""The fault-injection tally: run the fault suite (tests/faults) and count, per kind of fault, how
many were injected, how many the product survived (a clear error, an excluded and named rollout, or
an unchanged result), and how many changed a number.

"Numbers changed" counts failing cases among those that compare a result before and after a fault
(tampered records, torn ledgers, resumes); a passing run prints 0. A case that injects several faults
(test_kill9.py: one chain of 20 kills) records how many as the junit property `faults` and counts as
that many, all of them lost if it fails. Exit status: pytest's.

    python bench/faults.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"test_model_faults": "model provider (429/5xx/timeouts/bad bodies/dead port/pre-flight/breaker)",
         "test_input_faults": "corrupted inputs (records, task dirs, profiles, ledger, checkpoint, URIs, tool input)",
         "test_interrupt": "SIGINT mid-search (MLflow KILLED, resume)",
         "test_crash_resume": "crash at 20 seeded points (rollout, ledger, checkpoint, Optuna), then resume",
         "test_kill9": "kill -9 of a search process at 20 seeded points (rollout, ledger, checkpoint, MLflow, "
                       "Optuna), resumed each time",
         "test_failpoints": "the kill switch itself (off unless armed, a malformed value, SIGKILL at the n-th hit)",
         "test_caps": "a self-evaluating proposer against the planned rollout cap",
         "test_sandbox_venv": "a venv inside the checkout / via .. / via a symlink (sandbox)",
         "test_transfer_label": "an sa search's blocked-only score in the transfer table",
         "test_mlflow_stale_parent": "a kill during R0, then resume (MLflow parent reopened, not left RUNNING)"}
NUMBER_CHECKS = ("tampered", "torn_ledger", "resume", "not_scored", "crash_then_resume", "excluded")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "faults.xml"
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "tests/faults"),
                               f"--junitxml={report}", "-o", "junit_family=xunit1"], cwd=ROOT)
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for case in ET.parse(report).getroot().iter("testcase"):
            kind = KINDS.get(case.get("classname", "").split(".")[-1], case.get("classname", ""))
            failed = any(child.tag in ("failure", "error") for child in case)
            skipped = any(child.tag == "skipped" for child in case)
            if skipped:
                continue
            # a test that injects several faults in one case (test_kill9: one chain of kills) says how many
            faults = int(next((p.get("value") for p in case.iter("property") if p.get("name") == "faults"), 1))
            tally[kind][0] += faults
            tally[kind][1] += 0 if failed else faults
            tally[kind][2] += faults if failed and any(w in case.get("name", "") for w in NUMBER_CHECKS) else 0
    print("\n| faults | tried | survived | numbers changed |\n|---|---|---|---|")
    for kind, (tried, survived, changed) in tally.items():
        print(f"| {kind} | {tried} | {survived} | {changed} |")
    total = [sum(v[i] for v in tally.values()) for i in range(3)]
    print(f"| **all** | {total[0]} | {total[1]} | {total[2]} |")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
