"""What an edit changed: the trials that flipped between two harnesses run on the same tasks and seeds.

Two harnesses' scored trials are matched by (task, seed). A matched pair where both trials are valid
and the objective's per-trial value differs is a flip: *gained* when the second harness scores
higher, *lost* when lower. Pairs where either trial is excluded are counted apart (never a flip).
Counts come by stratum (blocked / feasible) and by family, so a reader sees where an edit helped and
where it hurt before opening one trajectory.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from harnessx.scoring.objective import Objective
from harnessx.scoring.task_score import TaskScore


@dataclass(frozen=True)
class Flip:
    """One matched (task, seed) whose value differs between the two harnesses."""

    task_id: str
    seed: int
    family: str          # the task family, or "feasible"
    first: float
    second: float
    first_key: str = ""  # rollout keys, to open the two trajectories
    second_key: str = ""
    first_mode: str = ""  # failure modes (ASA), where scored
    second_mode: str = ""

    @property
    def gained(self) -> bool:
        return self.second > self.first

    def to_dict(self) -> dict:
        return {"task_id": self.task_id, "seed": self.seed, "family": self.family, "first": self.first,
                "second": self.second, "direction": "gained" if self.gained else "lost",
                "first_key": self.first_key, "second_key": self.second_key,
                "first_failure_mode": self.first_mode, "second_failure_mode": self.second_mode}


@dataclass
class FlipReport:
    """The flips from `first` to `second`, with the matched and excluded counts they are out of."""

    first: str
    second: str
    objective: str
    matched: int = 0        # (task, seed) pairs both harnesses ran
    compared: int = 0       # of those, both trials valid
    excluded: int = 0       # of those, at least one trial excluded
    unmatched: int = 0      # trials of one harness with no partner in the other
    flips: list[Flip] = field(default_factory=list)

    @property
    def gained(self) -> list[Flip]:
        return [f for f in self.flips if f.gained]

    @property
    def lost(self) -> list[Flip]:
        return [f for f in self.flips if not f.gained]

    def by_family(self) -> dict[str, tuple[int, int]]:
        """family -> (gained, lost), families in a fixed order (feasible first, then by name)."""
        gained, lost = Counter(f.family for f in self.gained), Counter(f.family for f in self.lost)
        families = sorted(set(gained) | set(lost), key=lambda name: (name != "feasible", name))
        return {name: (gained[name], lost[name]) for name in families}

    def to_dict(self) -> dict:
        return {"first": self.first, "second": self.second, "objective": self.objective,
                "matched": self.matched, "compared": self.compared, "excluded": self.excluded,
                "unmatched": self.unmatched, "gained": len(self.gained), "lost": len(self.lost),
                "by_family": {k: {"gained": g, "lost": lost} for k, (g, lost) in self.by_family().items()},
                "flips": [f.to_dict() for f in self.flips]}


def family_of(score: TaskScore) -> str:
    return "feasible" if score.feasible else (score.family or "blocked")


def flips(first: list[tuple[TaskScore, str]], second: list[tuple[TaskScore, str]], objective: Objective,
          labels: tuple[str, str] = ("A", "B")) -> FlipReport:
    """Match two harnesses' (score, rollout key) trials by (task, seed) and list the flips, on the
    tasks the objective counts."""
    counted = set(objective.strata)

    def index(trials: list[tuple[TaskScore, str]]) -> dict[tuple[str, int], tuple[TaskScore, str]]:
        return {(s.task_id, s.seed): (s, key) for s, key in trials
                if ("feasible" if s.feasible else "blocked") in counted}

    a, b = index(first), index(second)
    report = FlipReport(labels[0], labels[1], objective.name, unmatched=len(a.keys() ^ b.keys()))
    for pair in sorted(a.keys() & b.keys()):
        (sa, ka), (sb, kb) = a[pair], b[pair]
        report.matched += 1
        va, vb = objective.trial_value(sa), objective.trial_value(sb)
        if va is None or vb is None:
            report.excluded += 1
            continue
        report.compared += 1
        if va != vb:
            report.flips.append(Flip(sa.task_id, sa.seed, family_of(sa), va, vb, ka, kb,
                                     sa.failure_mode or "", sb.failure_mode or ""))
    return report
