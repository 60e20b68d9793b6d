"""BFCL's own accuracy, recomputed from HarnessX trajectories, next to HarnessX's scores.

`bfcl_turns(trajectory)` rebuilds what BFCL's result file would hold for the episode: every tool
call the agent made (the deferral tool included: BFCL would see it as a call), grouped by user turn
(a turn starts at each user message). `bfcl_accuracy` runs BFCL's checker on that. On feasible base
tasks HarnessX's solve must agree with it task by task; on blocked tasks it stands next to strict SA,
which BFCL's accuracy does not measure (it skips the blocked turn).
"""

from __future__ import annotations

from dataclasses import dataclass

from harnessx.envs.bfcl.api import call_string
from harnessx.envs.bfcl.checker import check
from harnessx.envs.bfcl.data import Entry
from harnessx.stats import wilson
from harnessx.tasks import ToolCall
from harnessx.trajectory import Trajectory


def bfcl_turns(traj: Trajectory) -> list[list[str]]:
    turns: list[list[str]] = [[]]
    for event in traj.events:
        if event.kind == "message" and event.author == "user" and event.data.get("role") == "user":
            turns.append([])
        elif event.kind == "tool_call" and event.author == "agent":
            turns[-1].append(call_string(ToolCall(name=event.data["name"], arguments=event.data.get("arguments") or {})))
    return turns


def bfcl_accuracy(entry: Entry, traj: Trajectory) -> bool:
    return check(entry, bfcl_turns(traj)).valid


@dataclass
class Row:
    category: str
    n: int = 0
    bfcl: int = 0       # BFCL's accuracy (its checker on the trajectory's calls)
    harnessx: int = 0   # solve (feasible) or strict SA (blocked)
    agree: int = 0      # BFCL's verdict == HarnessX's native reward
    metric: str = "solve"

    def cells(self) -> list[str]:
        def rate(k: int) -> str:
            lo, hi = wilson(k, self.n) if self.n else (float("nan"), float("nan"))
            return f"{k}/{self.n} {100 * k / max(self.n, 1):.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
        return [self.category, str(self.n), rate(self.bfcl), f"{self.metric} {rate(self.harnessx)}",
                f"{self.agree}/{self.n}"]


HEADER = ["category", "n", "BFCL accuracy (its checker)", "HarnessX", "native reward = BFCL verdict"]


def markdown(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(lines)
