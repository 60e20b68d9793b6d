"""The fault-injection tally: run the fault suite (tests/faults) and the red-team suite
(tests/redteam: attack tasks against the terminal verifier) and count, per kind of fault, how
many were injected, how many the product survived (a clear error, an excluded and named rollout, or
an unchanged result), and how many changed a number.

"Numbers changed" counts failing cases among those that compare a result before and after a fault
(tampered records, torn ledgers, resumes); a passing run prints 0. A case that injects several faults
(test_kill9.py: one chain of 20 kills) records how many as the junit property `faults` and counts as
that many, all of them lost if it fails. Exit status: non-zero when pytest fails or a fault was not
survived.

    python bench/faults.py                      # runs tests/faults and tests/redteam
    python bench/faults.py --junit report.xml [--junit more.xml]   # tallies junit reports already written
                                                # (CI's default run and its slow run: their fault cases added up)
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
         "test_input_faults_state": "harness/task files that cannot be scored fairly, stale state, dead models",
         "test_input_faults_cli": "bad CLI input (OS/decoding errors, missing extras, out-of-range numbers, shared "
                                  "storage, leftovers)",
         "test_interrupt": "SIGINT mid-search (MLflow KILLED, resume)",
         "test_crash_resume": "crash at 20 seeded points (rollout, ledger, checkpoint, Optuna), then resume",
         "test_kill9": "kill -9 of a search process at 20 seeded points (rollout, ledger, checkpoint, MLflow, "
                       "Optuna), resumed each time",
         "test_failpoints": "the kill switch itself (off unless armed, a malformed value or unknown site, SIGKILL "
                            "at the n-th hit)",
         "test_caps": "a self-evaluating proposer against the planned rollout cap",
         "test_sandbox_venv": "a venv inside the checkout / via .. / via a symlink (sandbox)",
         "test_transfer_label": "an sa search's blocked-only score in the transfer table",
         "test_mlflow_stale_parent": "a kill during R0, then resume (MLflow parent reopened, not left RUNNING)",
         "test_verifier_attacks": "the agent attacks its verifier (conftest hook, daemon, /etc, host path, pids, "
                                  "disk)",
         "test_redteam": "red-team attack tasks per backend (links, prep write-through, early exit, plants, fake "
                         "results, host paths, races/FIFOs, daemons, exhaustion, late edits)",
         "test_verifier_mechanisms": "the verifier's mechanisms alone (no-follow host I/O, forged or short result "
                                     "streams, output flood)"}
SUITES = ("tests/faults", "tests/redteam")
NUMBER_CHECKS = ("tampered", "torn_ledger", "resume", "not_scored", "crash_then_resume", "excluded")


def tally(*reports: Path) -> dict[str, list[int]]:
    """Per kind of fault: [tried, survived, numbers changed], from the fault cases of junit reports."""
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for case in (c for report in reports for c in ET.parse(report).getroot().iter("testcase")):
        classname = case.get("classname", "")
        if not any(f"{Path(suite).name}." in classname for suite in SUITES):
            continue  # a full suite's report: only tests/faults and tests/redteam count here
        kind = KINDS.get(classname.split(".")[-1], classname)
        failed = any(child.tag in ("failure", "error") for child in case)
        if any(child.tag == "skipped" for child in case):
            continue
        # a test that injects several faults in one case (test_kill9: one chain of kills) says how many
        faults = int(next((p.get("value") for p in case.iter("property") if p.get("name") == "faults"), 1))
        rows[kind][0] += faults
        rows[kind][1] += 0 if failed else faults
        rows[kind][2] += faults if failed and any(w in case.get("name", "") for w in NUMBER_CHECKS) else 0
    return rows


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        if argv and argv[::2] == ["--junit"] * (len(argv) // 2) and len(argv) % 2 == 0:  # reports already written
            reports, status = [Path(a) for a in argv[1::2]], 0
        elif not argv:
            reports = [Path(tmp) / "faults.xml"]
            # `-m ""`: the fault and red-team suites are in the slow set, which the default options leave out
            status = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "",
                                     *(str(ROOT / s) for s in SUITES), f"--junitxml={reports[0]}",
                                     "-o", "junit_family=xunit1"],
                                    cwd=ROOT).returncode
        else:
            print("usage: python bench/faults.py [--junit REPORT.xml ...]", file=sys.stderr)
            return 2
        rows = tally(*reports)
    if not rows:
        print(f"{', '.join(map(str, reports))}: no fault cases ({', '.join(SUITES)}) in these reports", file=sys.stderr)
        return 1
    print("\n| faults | tried | survived | numbers changed |\n|---|---|---|---|")
    for kind, (tried, survived, changed) in rows.items():
        print(f"| {kind} | {tried} | {survived} | {changed} |")
    total = [sum(v[i] for v in rows.values()) for i in range(3)]
    print(f"| **all** | {total[0]} | {total[1]} | {total[2]} |")
    return status or (1 if total[1] < total[0] else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
