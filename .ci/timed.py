"""Run a command, then print one line with its wall time, its CPU time (user + system, of it and every
process it waited for: pytest-xdist's workers included) and the load average around it; exit with
the command's status. CI runs each pytest invocation through it.

    python .ci/timed.py python -m pytest -q
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

if __name__ == "__main__":
    started, load = time.monotonic(), os.getloadavg()[0]
    status = subprocess.call(sys.argv[1:])
    wall, used = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"timed `{' '.join(sys.argv[1:])}`: wall {wall:.0f} s, CPU {used.ru_utime + used.ru_stime:.0f} s "
          f"(user {used.ru_utime:.0f} + system {used.ru_stime:.0f}) on {os.cpu_count()} cores, load average "
          f"{load:.1f} at the start and {os.getloadavg()[0]:.1f} at the end; exit {status}", flush=True)
    sys.exit(status)
