"""Per-episode sandbox cost: start a sandbox, run one command, stop it, compared with running the
same command unsandboxed (`bash -c COMMAND` as a subprocess).

For each available backend (bwrap, unshare, docker when an engine is reachable) the median over
`--repeat` episodes is printed with its ratio to the unsandboxed median.

Run: python bench/sandbox_overhead.py [--repeat 20] [--command 'echo hi']
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from harnessx.envs.terminal.sandbox import Layout, make_sandbox
from harnessx.errors import EnvironmentFailure


def layout(base: Path) -> Layout:
    mounts = {}
    for root in ("/app", "/tests", "/logs", "/tmp", "/root"):
        (base / root.strip("/")).mkdir(parents=True, exist_ok=True)
        mounts[root] = base / root.strip("/")
    return Layout(mounts=mounts)


def unsandboxed(command: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(["/bin/bash", "-c", command], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def episode(name: str, command: str, repeat: int) -> float:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):
            started = time.perf_counter()
            box = make_sandbox(name)
            box.start(layout(Path(tmp)))
            result = box.run(command, 60)
            box.stop()
            times.append(time.perf_counter() - started)
            if result.exit_code != 0:
                raise RuntimeError(f"{name}: {result.stderr}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--command", default="echo hi")
    args = parser.parse_args()
    base = unsandboxed(args.command, args.repeat)
    print(f"unsandboxed        {base * 1000:8.2f} ms   1.0x")
    for name in ("bwrap", "unshare", "docker"):
        if name == "bwrap" and not shutil.which("bwrap"):
            print(f"{name:18} not installed (apt-get install -y bubblewrap)")
            continue
        try:
            cost = episode(name, args.command, args.repeat if name != "docker" else max(3, args.repeat // 4))
        except EnvironmentFailure as exc:
            print(f"{name:18} unavailable: {str(exc)[:100]}")
            continue
        print(f"{name:18} {cost * 1000:8.2f} ms {cost / base:6.1f}x  (start + run + stop per episode)")


if __name__ == "__main__":
    main()
