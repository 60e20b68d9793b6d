"""`explore` (alias `default`): move on modest evidence, spend rollouts where they decide something.

The search moves; the claim at the end (harnessx/search/certify.py) certifies, once, on tasks selection
never saw. So a round needs no test at alpha: it needs the best of its proposals, found cheaply, and a
move that is rarely harmful. Per round, in the arena's stratified order (blocked and feasible
interleaved, so a pair of neighbours is the sampling unit):

0. **Gate.** With `gate = g` (4 by default) the round judges screen/g times `--proposals` looks, each
   first against the incumbent on the screen's first g tasks; the best `--proposals` not worse there
   go on (GEPA's minibatch gate, bought with the screens' rollouts). On g tasks means tie often; with
   `tie_tasks = t` (8 by default) the looks tied at the cut are compared again on t more of the
   screen's tasks (a cut look pays for them; the kept ones pay nothing extra: they meet the screen
   anyway); with t = 0 the proposer's order decides.
1. **Screen.** Every proposal meets the incumbent on a small window of blocked–feasible pairs
   (`screen` tasks). Three quarters of the window are pairs where the incumbent failed at least one
   task (its paid rollouts say so), the rest the next pairs of the order; the window rotates every
   round, so successive rounds look at different pairs.
2. **Promote.** Proposals ahead on the screen (or level with the incumbent there) climb rungs (the window plus the first 2·screen,
   4·screen, ... tasks of the rotated order, up to the whole split). At each rung a proposal whose
   mean per-task difference is not above `futility` stops; with `design = "halving"` only the better
   half of the climbers goes on at each rung (successive halving across the round's proposals); with
   `design = "promote"` only the screen's best climbs. Every rollout already paid (the incumbent's,
   an undecided edit's on the same incumbent) is reused.
   Past the screen, a climber's mean is taken on the rung's prefix of the order only (the first
   screen·2^r tasks), a sample chosen without looking at anyone's outcomes: the pairs picked for the
   incumbent's failures (where a copy can only tie or gain) select between proposals but never vouch
   for one, and leaving them out of the prefix would tilt it toward the incumbent's successes.
3. **Move.** The last climber, on the whole split, is moved to when its one-sided paired p-value is
   below `move_p` (a modest bar: 0.5 by default, about "its mean is ahead", not a test at alpha) and the harm veto
   (harnessx/search/veto.py, at `veto_alpha`) does not fire. Ahead but not moved: undecided, so the
   proposer may bring it back on a new incumbent.

The moved-to harness has every task of the split, so the next round's incumbent costs nothing.
The defaults (gate 4, tie_tasks 8, `halving`, `move_p` 0.5) were chosen on design draws of the simulated world
distribution and reported on others (docs/search-benchmarks.md, "Breadth and pairs").

`design = "window"` (measured beside the default, not the default; docs/search-benchmarks.md) skips
steps 1–2: the incumbent and every proposal meet on one window of `screen` tasks of the rotated order,
chosen blind to outcomes and new each round, and the best mean there is moved to on step 3's bar. It
pays (K + 1) windows a round and no climb; the loop scores the selected harness on the whole split
at the end, so the summary compares it with R0 on the same tasks.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import asdict, dataclass

from harnessx.errors import InputError
from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.search.acceptance import AcceptanceRule, Paired, Verdict, describe
from harnessx.search.arena import Arena
from harnessx.search.veto import p_harmed, vetoes

DESIGNS = ("promote", "halving", "window")
CONFIRM = ("all", "unseen")  # what a climber at the whole split is moved on
FAILING_SHARE = 0.75  # of the screen's pairs, taken where the incumbent failed
DEFAULT_GATE = 4  # tasks of the minibatch gate (docs/search-benchmarks.md, "Breadth and pairs")
DEFAULT_TIE_TASKS = 8  # more screen tasks the looks tied at the gate's cut are ranked on (search-benchmarks.md,
#                        "Designs tried for the budget target")


@dataclass
class ExploreSettings:
    """The rule's knobs (`--accept default` uses these defaults)."""

    screen: int = 16          # tasks (whole blocked–feasible pairs) every proposal is screened on
    design: str = "halving"   # halving: the better half climbs each rung; promote: the screen's best climbs;
    #                           window: every proposal and the incumbent on one rotating window of `screen` tasks
    move_p: float = 0.5       # move when the climber's one-sided paired p on the whole split is below this
    veto_alpha: float = 0.05  # the harm veto's level (a stratum or false abstention worse at p < this)
    futility: float = 0.0     # a climber whose mean difference is not above this stops
    confirm: str = "all"      # all: the move's test and harm veto on the whole split; unseen: on the tasks past
    #                           the screen (which chose the climber), when there are at least 2 (measured
    #                           on small splits, docs/search-benchmarks.md "Terminal"; not yet the default)
    gate: int | None = None   # > 0: breadth -- screen/gate times as many proposals, each first on a minibatch of
    #                           `gate` tasks; only the best `--proposals` not worse than the incumbent there go on;
    #                           0: off; None: DEFAULT_GATE (off with design window, which has no screen to gate)

    tie_tasks: int | None = None  # > 0: looks tied at the gate's cut are ranked again on this many more screen
    #                           tasks; 0: the proposer's order breaks the tie; None: DEFAULT_TIE_TASKS (at most
    #                           screen - gate; 0 without a gate)

    def looks(self, proposals: int) -> int:
        """Proposals judged a round: with a gate, the screening rollouts of `proposals` screens bought as
        looks of `gate` tasks each (so the round's cheap looks grow with what a screen costs)."""
        return proposals * max(1, self.screen // self.gate) if self.gate else proposals

    def __post_init__(self) -> None:
        if self.gate is None:
            self.gate = 0 if self.design == "window" else min(DEFAULT_GATE, int(self.screen))
        if self.tie_tasks is None:
            self.tie_tasks = max(0, min(DEFAULT_TIE_TASKS, int(self.screen) - int(self.gate))) if self.gate else 0
        checks = [(k, float(getattr(self, k)).is_integer(), "a whole number of tasks") for k in ("screen", "gate", "tie_tasks")]
        checks += [("screen", self.screen >= 2 and self.screen % 2 == 0, "an even number of tasks >= 2 (whole pairs)"),
                  ("design", self.design in DESIGNS,
                  " or ".join(DESIGNS)), ("move_p", 0 < self.move_p <= 1, "in (0, 1]"),
                  ("veto_alpha", 0 < self.veto_alpha < 1, "in (0, 1)"),
                  ("confirm", self.confirm in CONFIRM and not (self.confirm == "unseen" and self.design == "window"),
                   " or ".join(CONFIRM) + " (unseen not with design window, which has no screen)"),
                  ("gate", self.gate == 0 or 2 <= self.gate <= self.screen and self.design != "window",
                   "0 (off) or 2 .. screen tasks (not with design window)"),
                  ("tie_tasks", self.tie_tasks == 0 or self.gate and 0 < self.tie_tasks <= self.screen - self.gate,
                   "0 (off) or 1 .. screen - gate tasks (with a gate)")]
        for name, ok, expected in checks:
            if not ok:
                raise InputError("--accept default", f"{name} = {getattr(self, name)!r}", expected)
        self.screen, self.gate, self.tie_tasks = int(self.screen), int(self.gate), int(self.tie_tasks)


class Explore(AcceptanceRule):
    """Screen every proposal on a few pairs, promote the leaders with futility stops, move on p < move_p."""

    name = "explore"

    def __init__(self, settings: ExploreSettings | None = None, **options):
        self.settings = settings or ExploreSettings(**options)

    def looks(self, proposals: int) -> int:
        return self.settings.looks(proposals)

    def options(self) -> dict:
        return asdict(self.settings)

    def round_rollouts(self, tasks: int, proposals: int) -> int:
        return climb_rollouts(self.settings, tasks, proposals)

    async def incumbent_evaluation(self, incumbent: Harness, arena: Arena) -> Evaluation:
        """The tasks the incumbent already has (no new rollout), or the whole split if it has none
        (`window`: the round's window)."""
        paid = arena.paid_tasks(incumbent)
        if self.settings.design == "window":
            return await arena.evaluate_on(incumbent, paid or self.blind_window(arena))
        return await (arena.evaluate_on(incumbent, paid) if paid else arena.evaluate(incumbent))

    def blind_window(self, arena: Arena) -> list:
        """`window`: this round's `screen` tasks of the rotated order, chosen blind to every outcome."""
        size = min(self.settings.screen, len(arena.tasks))
        return arena.rotated(max(arena.round - 1, 0) * size)[:size]

    def window(self, arena: Arena, incumbent_eval: Evaluation) -> tuple[list, list]:
        """(screen tasks, the rotated order the rungs take their tasks from)."""
        n, size = len(arena.tasks), min(self.settings.screen, len(arena.tasks))
        order = arena.rotated(max(arena.round - 1, 0) * size)
        success = incumbent_eval.per_task_success(arena.objective.value_key)
        pairs = [order[i:i + 2] for i in range(0, n, 2)]
        failing = [p for p in pairs if any(success.get(t.id, 0.0) < 1.0 for t in p)]
        want = math.ceil(FAILING_SHARE * size / 2)
        chosen = failing[:want]
        chosen += [p for p in pairs if p not in chosen][: math.ceil(size / 2) - len(chosen)]
        picked = {t.id for p in chosen for t in p}
        return [t for t in order if t.id in picked], order

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        s, key, strata, n = self.settings, arena.objective.value_key, arena.objective.strata, len(arena.tasks)
        if s.design == "window":
            return await self._judge_window(incumbent, proposals, arena)
        screen, order = self.window(arena, await self.incumbent_evaluation(incumbent, arena))
        verdicts, means = {}, {}
        climbing = list(range(len(proposals)))
        if s.gate and len(proposals) > 1:
            climbing = await self._gate(incumbent, proposals, arena, screen, verdicts)
        tasks, rung, prefix = screen, 0, 0
        while climbing:
            stage = "full" if len(tasks) >= n else f"{'screen' if rung == 0 else 'rung'} {len(tasks)}/{n} tasks"
            inc, *evals = await asyncio.gather(arena.evaluate_on(incumbent, tasks),
                                               *(arena.evaluate_on(proposals[i], tasks) for i in climbing))
            for i, ev in zip(climbing, evals):
                paired = Paired.of(ev, inc, key)
                if rung:  # past the screen: the rung's prefix of the order, chosen blind to outcomes
                    paired = paired.subset([t.id for t in order[:prefix]])
                verdicts[i], means[i] = _verdict(ev, paired, stage, strata)
            # on the screen a tie may climb (16 tasks often show a small gain as none); past it, only a lead
            ahead = sorted((i for i in climbing if means[i] > s.futility or rung == 0 and means[i] == s.futility),
                           key=lambda i: (-means[i], i))
            for i in set(climbing) - set(ahead):
                verdicts[i].reason = f"stopped at {stage}: mean Δ = {means[i]:+.3f}, not above {s.futility:+.3f}"
            if len(tasks) >= n:
                if ahead:
                    self._move(verdicts, ahead[0], *self._evidence(verdicts[ahead[0]].evaluation, inc, key, screen),
                               strata)
                for i in ahead[1:]:
                    verdicts[i].undecided = True
                    verdicts[i].reason = f"ahead at {stage} (mean Δ = {means[i]:+.3f}) but another climber was further"
                break
            keep = 1 if s.design == "promote" and rung == 0 else (
                math.ceil(len(ahead) / 2) if s.design == "halving" and len(ahead) > 1 else len(ahead))
            for i in ahead[keep:]:
                verdicts[i].undecided = True
                verdicts[i].reason = f"ahead at {stage} (mean Δ = {means[i]:+.3f}) but not among the climbers"
            climbing = ahead[:keep]
            rung += 1
            prefix = len(screen) * 2 ** rung
            if prefix >= n - 2:  # the last pair is not worth a rung of its own
                prefix = n
            picked = {t.id for t in tasks}
            tasks = tasks + [t for t in order[:prefix] if t.id not in picked]
        return [verdicts[i] for i in range(len(proposals))]

    async def _gate(self, incumbent: Harness, proposals: list[Harness], arena: Arena, screen: list,
                    verdicts: dict) -> list[int]:
        """The minibatch gate: every proposal and the incumbent on the screen's first `gate` tasks; the best
        `proposals / looks` of those not worse than the incumbent there go on to the screen (GEPA's gate,
        capped so a round never pays more screens than `--proposals` asks for)."""
        s, key, strata, tasks = self.settings, arena.objective.value_key, arena.objective.strata, screen[:self.settings.gate]
        stage = f"gate {len(tasks)}/{len(arena.tasks)} tasks"
        inc, *evals = await asyncio.gather(arena.evaluate_on(incumbent, tasks),
                                           *(arena.evaluate_on(p, tasks) for p in proposals))
        means = {}
        for i, ev in enumerate(evals):
            verdicts[i], means[i] = _verdict(ev, Paired.of(ev, inc, key), stage, strata)
        level = sorted((i for i in means if means[i] >= 0), key=lambda i: (-means[i], i))
        keep = max(1, math.ceil(len(proposals) * s.gate / s.screen))
        again: dict[int, float] = {}  # the tied looks' means on the tie-break's tasks
        if s.tie_tasks and len(level) > keep and means[level[keep - 1]] == means[level[keep]]:
            level, again = await self._break_ties(incumbent, proposals, arena, screen, level, means, keep, verdicts)
        for i in set(means) - set(level):
            verdicts[i].reason = f"stopped at {stage}: mean Δ = {means[i]:+.3f}, worse than the incumbent there"
        for i in level[keep:]:
            verdicts[i].undecided = means[i] > 0  # ahead at the gate: no evidence against it (the tie's mean ranks only)
            verdicts[i].reason = (f"tied at {stage} (mean Δ = {means[i]:+.3f}); on {verdicts[i].stage.split(', ')[-1]} "
                                  f"mean Δ = {again[i]:+.3f}, not among the {keep} best" if i in again else
                                  f"not worse at {stage} (mean Δ = {means[i]:+.3f}) but not among the {keep} best")
        return level[:keep]

    async def _break_ties(self, incumbent: Harness, proposals: list[Harness], arena: Arena, screen: list,
                          level: list[int], means: dict, keep: int, verdicts: dict) -> tuple[list[int], dict]:
        """The looks tied at the gate's cut, ranked again on the gate's tasks and `tie_tasks` more of the
        screen's (a tie there again: the proposer's order); those above the tie keep their places. A
        tied look's verdict holds what it was ranked on (its row counts the tie-break's rollouts)."""
        cut, tasks = means[level[keep - 1]], screen[:self.settings.gate + self.settings.tie_tasks]
        stage = f"gate {self.settings.gate}/{len(arena.tasks)} tasks, tie-break {len(tasks)}/{len(arena.tasks)} tasks"
        tied = [i for i in level if means[i] == cut]
        inc, *evals = await asyncio.gather(arena.evaluate_on(incumbent, tasks),
                                           *(arena.evaluate_on(proposals[i], tasks) for i in tied))
        again = {}
        for i, ev in zip(tied, evals):
            paired = Paired.of(ev, inc, arena.objective.value_key)
            verdicts[i], again[i] = _verdict(ev, paired, stage, arena.objective.strata)[0], _mean(paired)
        return ([i for i in level if means[i] > cut] + sorted(tied, key=lambda i: (-again[i], i))
                + [i for i in level if means[i] < cut]), again

    async def _judge_window(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        """`window`: the incumbent and every proposal on this round's blind window (a fresh sample each
        round, so neither the incumbent's lucky rollouts nor a lucky screen carries over); the best
        mean on it is moved to on p < move_p and a silent veto, the others ahead stay undecided."""
        key, strata, tasks = arena.objective.value_key, arena.objective.strata, self.blind_window(arena)
        stage = "full" if len(tasks) >= len(arena.tasks) else f"window {len(tasks)}/{len(arena.tasks)} tasks"
        inc, *evals = await asyncio.gather(arena.evaluate_on(incumbent, tasks),
                                           *(arena.evaluate_on(p, tasks) for p in proposals))
        pairs = {i: Paired.of(ev, inc, key) for i, ev in enumerate(evals)}
        verdicts, means = {}, {}
        for i, ev in enumerate(evals):
            verdicts[i], means[i] = _verdict(ev, pairs[i], stage, strata)
        ahead = sorted((i for i in means if means[i] > self.settings.futility), key=lambda i: (-means[i], i))
        for i in set(means) - set(ahead):
            verdicts[i].reason = f"behind at {stage}: mean Δ = {means[i]:+.3f}, not above {self.settings.futility:+.3f}"
        if ahead:
            self._move(verdicts, ahead[0], pairs[ahead[0]], "", strata)
        for i in ahead[1:]:
            verdicts[i].undecided = True
            verdicts[i].reason = f"ahead at {stage} (mean Δ = {means[i]:+.3f}) but another proposal was further"
        return [verdicts[i] for i in range(len(proposals))]

    def _evidence(self, ev: Evaluation, inc: Evaluation, key: str, screen: list) -> tuple[Paired, str]:
        """What a climber at the whole split is moved on, and where that is: with `confirm` unseen, the
        tasks past the screen (the screen chose it, so it reads high there by selection: on a small split
        the screen is most of it, and a lucky harmful edit would be moved to on its own luck), else the
        whole split. The past tasks are not free of selection either: with `halving` they also rank the
        climbers at the rungs and at the whole split; with fewer than 2 of them, the whole split."""
        paired = Paired.of(ev, inc, key)
        chose = {t.id for t in screen}
        past = [t for t in paired.per_task if t not in chose]
        if self.settings.confirm == "unseen" and len(past) >= 2 and len(past) < len(paired.per_task):
            return paired.subset(past), f"on the {len(past)} tasks past the screen"
        return paired, ""

    def _move(self, verdicts: dict[int, Verdict], i: int, paired: Paired, where: str, strata: tuple[str, ...]) -> None:
        s, verdict = self.settings, verdicts[i]
        if where:  # judged on part of what it climbed on: the row's evidence is that part's, all of it
            describe(verdict, paired, strata)  # (which runs the test: read it, do not run it twice)
            mean, p = verdict.mean_diff, verdict.p_value
        else:
            mean, p = paired.test()
        verdict.p_value = verdict.p_adjusted = p
        where = where or ("on the whole split" if verdict.stage == "full" else f"at {verdict.stage}")
        vetoed = vetoes(paired, strata, p_harmed(s.veto_alpha))
        if vetoed:
            verdict.reason = (f"not moved: mean Δ = {mean:+.3f} {where} but {'/'.join(vetoed)} worse "
                              f"(p_harm < {s.veto_alpha:g})")
        elif p >= s.move_p:
            verdict.undecided = True
            verdict.reason = f"not moved: mean Δ = {mean:+.3f} {where}, p = {p:.3f} >= {s.move_p:g}"
        else:
            verdict.accepted = True
            verdict.reason = (f"moved to: mean Δ = {mean:+.3f} {where}, p = {p:.3f} < {s.move_p:g} "
                              "(a move, not a claim: the claim at the end certifies)")


def _verdict(ev: Evaluation, paired: Paired, stage: str, strata: tuple[str, ...]) -> tuple[Verdict, float]:
    """A proposal's verdict at `stage` from its paired differences, and the mean that ranks it
    (-inf when nothing of it could be scored)."""
    verdict = Verdict(ev, stage)
    describe(verdict, paired, strata)
    return verdict, verdict.mean_diff if ev.scorecard.joint.n else -math.inf


def _mean(paired: Paired) -> float:
    a, b = paired.arrays()
    return float((a - b).mean()) if a.size else -math.inf


def climb_rollouts(settings: ExploreSettings, n: int, k: int) -> int:
    """The most rollouts (one seed) a round of the rule can pay for `--proposals` k: with a gate, its
    looks on `gate` tasks each (each cut look on `gate + tie_tasks` at most, the screen at most: the tie-break)
    and k of them through the rest of the screen; then K proposals on the screen, then the
    climbers of each rung (one for `promote`, half of the last rung's for `halving`) on the rung's new
    tasks, up to the whole split; a rung holds at most the screen plus the first screen·2^r tasks
    (the whole split once those reach its last pair). The
    incumbent costs nothing (R0 and every moved-to harness have every task)."""
    s = min(settings.screen, n)
    if settings.design == "window":  # every proposal and the (new) incumbent on one window
        return (k + 1) * s
    sizes, r = [s], 0
    while sizes[-1] < n:
        r += 1
        size = n if s * 2 ** r >= n - 2 else min(n, s + s * 2 ** r)
        sizes.append(size)
    gated = (settings.looks(k) - k) * min(settings.gate + settings.tie_tasks, s) if settings.gate else 0
    climbers = [k] + [1 if settings.design == "promote" else max(1, math.ceil(k / 2 ** i)) for i in range(1, len(sizes))]
    return gated + sum(c * (b - a) for c, a, b in zip(climbers, [0, *sizes], sizes))
