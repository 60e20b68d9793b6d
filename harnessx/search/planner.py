"""Budget and power planner: what a search budget buys, and the smallest gain a round can detect.

Under `paired` a round compares each of K proposals with the incumbent on n paired tasks (E seeds
each) by a one-sided paired test at level alpha / K (Holm's first step). Per task the difference
d = challenger − incumbent has variance about `discordance` / E, where `discordance` is the share of (task, seed) pairs whose outcomes differ between the two harnesses
(p10 + p01 of a paired binomial; 2 p (1 − p) when their rollouts are independent, p = the
incumbent's success rate; far lower when rollouts share their random draws). Then

    MDE = (z_{1 − alpha/K} + z_{power}) · sqrt(discordance / E) / sqrt(n)       (normal approximation)
    power(delta) = Phi(delta · sqrt(n) / sigma − z_{1 − alpha/K})

and `exact_power` gives the exact one-sided McNemar (sign-test) power of a paired binomial case.
The normal approximation does not hold on a handful of tasks: a one-sided sign-flip test on N
paired tasks has p >= 2^-N, so below `min_pairs` tasks no effect can pass and the plan says so
(MDE none, power 0) instead of quoting the approximation.
The budget (rollouts, or dollars at a per-rollout cost from an R0 estimate) buys rounds at the
worst case of the rule: greedy and paired evaluate every proposal on every task. `greedy` runs no
test: it moves to the best proposal whose mean is above the incumbent's, so it has no MDE per round.
`default` (`explore`, harnessx/search/explore.py) gates s/g K looks on g tasks (g = 4), screens the K
best on s tasks (16), promotes the better half at each rung (`halving`, the default) or the leader
(`promote`) to the whole split with futility stops, and moves when the climber's one-sided paired p
is below move_p (0.5) and the harm veto is silent: per round at most the looks' g E, K s E screening
rollouts, plus the climbers' rungs (the moved-to harness has every task, so the incumbent costs
nothing), and its "MDE" is the gain it moves to with the stated power at level move_p on n tasks,
not a test's.

Rollouts: the expected figure is the rule's own schedule above (racing and the rollout cache only
lower it); the cap is the search's hard bound, every proposal evaluated on every task
(tasks x seeds x (1 + rounds x K), or --max-rollouts when lower). `harnessx plan` and the search's
pre-flight print both from `rollout_line`.

The claim at the end (harnessx/search/certify.py) is one one-sided test at alpha of the selected
harness against R0 on the claim's n_c tasks x E_c seeds, so its MDE is the formula above with
alpha undivided, n_c and E_c; it runs after the search, 2 n_c E_c rollouts (fewer when cached).
The discordance is estimated from R0's rollouts when there are any (harnessx/search/discordance.py)
and is otherwise assumed at 0.5, which the plan says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from scipy.stats import binom, norm

from harnessx.errors import InputError
from harnessx.search.names import rounds_limit
from harnessx.search.discordance import ASSUMED
from harnessx.search.explore import ExploreSettings, climb_rollouts


@dataclass(frozen=True)
class PlanConfig:
    tasks: int                       # paired tasks on the search split (objective's strata)
    rounds: int | None = None        # None: as many as the budget buys (no budget: DEFAULT_ROUNDS)
    proposals: int = 3
    epochs: int = 1
    alpha: float = 0.05
    power: float = 0.8
    accept: str = "default"
    accept_options: dict = field(default_factory=dict)  # the rule's settings (--accept-option), e.g. gate=0
    discordance: float = 0.5         # p10 + p01 per (task, seed); 0.5 = independent rollouts at p = 0.5
    effect: float | None = None      # the gain the user wants to be able to detect (absolute, e.g. 0.05)
    max_rollouts: int | None = None
    max_cost: float | None = None
    cost_per_rollout: float | None = None  # USD, from an R0 estimate
    claim_tasks: int | None = None    # tasks of the claim's split (None: the claim is not run)
    claim_epochs: int | None = None   # seeds per task of the claim (None: epochs)
    claim_split: str = "heldout"
    discordance_source: str = ASSUMED.source    # where `discordance` comes from (printed next to it)

    def __post_init__(self) -> None:
        checks = [("tasks", self.tasks >= 1, "at least 1"), ("rounds", (self.rounds or 0) >= 0, ">= 0"),
                  ("proposals", self.proposals >= 1, ">= 1"), ("epochs", self.epochs >= 1, ">= 1"),
                  ("alpha", 0 < self.alpha < 1, "in (0, 1)"), ("power", 0 < self.power < 1, "in (0, 1)"),
                  ("discordance", 0 < self.discordance <= 1, "in (0, 1]"),
                  ("certify_epochs", (self.claim_epochs or 1) >= 1, ">= 1")]
        for name, ok, expected in checks:
            if not ok:
                raise InputError(f"--{name.replace('_', '-')}", f"got {getattr(self, name)!r}", expected)
        if self.max_cost is not None and not self.cost_per_rollout:
            raise InputError("--max-cost", "a dollar budget needs a per-rollout cost",
                             "--cost-per-rollout USD or --from-run RUN (the R0 estimate)")


@dataclass
class Plan:
    config: PlanConfig
    per_candidate: int               # rollouts of one full evaluation (tasks x seeds)
    tested_tasks: int                # tasks a proposal is tested on per round (worst case of the rule)
    rollouts_per_round: int
    rollouts: int                    # R0 + the rounds that fit
    rounds: int                      # rounds the budget buys (<= config.rounds)
    budget_rollouts: int | None
    mde: float                       # minimum detectable effect per round (absolute, on the objective)
    power_at_effect: float | None
    cap: int = 0                     # the search's hard bound on rollouts (worst case, or the budget)
    claim_rollouts: int = 0          # the claim's, after the search (2 n_c E_c; cached ones are free)
    claim_mde: float | None = None   # the claim's minimum detectable effect (None: not run)
    claim_power: float | None = None  # power of the claim to certify `effect`
    budgeted: bool = False           # no --rounds: rounds run while the budget pays for a round at its worst case
    warnings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        c = self.config
        out = [rollout_line(self), self.moves_line()]
        if c.effect is not None and c.accept != "greedy":
            out.append(("probability of moving to" if c.accept in EXPLORE else "power to detect")
                       + f" {c.effect:+.3f} per round: "
                       f"{self.power_at_effect:.2f}")
        out += [f"discordance {c.discordance:.3f}: {c.discordance_source}", self.claim_line()]
        return out + [f"WARNING: {w}" for w in self.warnings]

    def moves_line(self) -> str:
        """What the rule tests before it moves (greedy: nothing)."""
        c = self.config
        if c.accept in EXPLORE:
            s = explore_settings(c)
            gate = (f"gates {looks(c)} looks a round on {s.gate} tasks each, " if looks(c) != c.proposals else "")
            return (f"moves: {c.accept} {gate}screens {'the best ' + str(c.proposals) if gate else 'each proposal'} on "
                    f"{min(s.screen, c.tasks)} tasks, promotes the "
                    f"{'leader' if s.design == 'promote' else 'better half at each rung'} to all {c.tasks} tasks with "
                    f"futility stops, and moves when its one-sided paired p < {s.move_p:g} and the harm veto (alpha "
                    f"{s.veto_alpha:g}) is silent: a move, not a test (the claim below is the test); it moves to a gain "
                    + (f"of {self.mde:+.3f} with probability {c.power:.2f}" if math.isfinite(self.mde) else
                       "of any size only by chance (too few tasks)")
                    + f" (discordance {c.discordance:.2f})")
        if c.accept == "greedy":
            return ("moves: greedy evaluates every proposal on every task and moves to the best one whose mean "
                    "objective is above the incumbent's; it runs no test, so a difference of one task moves it and "
                    "a round has no minimum detectable effect (the claim below is the test)")
        return (f"power: a proposal tested on {self.tested_tasks} paired tasks x {c.epochs} seed(s) at alpha "
                f"{c.alpha}/{divisor(c)} (one-sided), discordance {c.discordance:.2f}: minimum detectable effect " + (f"{self.mde:+.3f} at power {c.power:.2f}" if math.isfinite(self.mde)
                                        else "none (too few tasks)"))

    def claim_line(self) -> str:
        c = self.config
        if c.claim_tasks is None:
            return "claim: not run (--certify-split none, or no such split): the selection is not certified"
        head = (f"claim: selected vs R0 on {c.claim_tasks} {c.claim_split} tasks x {claim_epochs(c)} seed(s), "
                f"one-sided at alpha {c.alpha:g}, discordance {c.discordance:.2f}: minimum detectable effect ")
        return (head + (f"{self.claim_mde:+.3f} at power {c.power:.2f}" if self.claim_mde is not None and
                        math.isfinite(self.claim_mde) else "none (too few tasks)")
                + f"; {self.claim_rollouts} rollouts after the search (outside --max-rollouts; cached ones are free)"
                + (f"; power to certify {c.effect:+.3f}: {self.claim_power:.2f}" if self.claim_power is not None
                   else ""))


def rollout_line(p: Plan) -> str:
    """The rollout figures `harnessx plan` and the search's pre-flight both print: the expected
    figure (the rule's schedule) and the hard cap, labelled."""
    c = p.config
    if p.budgeted:
        return (f"budget: {p.budget_rollouts} rollouts" + (f" (${c.max_cost:.2f} at ${c.cost_per_rollout:.5f} per "
                                                          "rollout)" if c.max_cost is not None else "")
                + f" sets the rounds (no --rounds): R0, then rounds of {c.proposals} proposals x {c.epochs} seed(s) on "
                f"{c.tasks} tasks" + (f" ({looks(c)} looks a round, each first on a {explore_settings(c).gate}-task "
                                      "minibatch)" if looks(c) != c.proposals else "")
                + f" while the budget left pays for a round at the rule's most ({p.rollouts_per_round}; rule "
                f"{c.accept}'s schedule, {p.per_candidate} per full evaluation): at least {p.rounds} rounds, more "
                f"when rounds cost less than that, as they usually do, and a narrower last round with what is left; "
                f"up to {p.rollouts} rollouts")
    return ((f"budget: {p.budget_rollouts} rollouts" if p.budget_rollouts is not None else "budget: no cap")
            + (f" (${c.max_cost:.2f} at ${c.cost_per_rollout:.5f} per rollout)" if c.max_cost is not None else "")
            + f" buys R0 + {p.rounds} rounds x {c.proposals} proposals x {c.epochs} seed(s) on {c.tasks} tasks"
            + (f" ({looks(c)} looks a round, each first on a {explore_settings(c).gate}-task minibatch)"
               if looks(c) != c.proposals else "") + ": "
            f"{SCHEDULE.get(c.accept, 'expected about')} {p.rollouts} rollouts (rule {c.accept}'s schedule, "
            f"{p.rollouts_per_round} per round, {p.per_candidate} per full evaluation; "
            f"{LOWERS.get(c.accept, 'the rollout cache only lowers it')}), at most {p.cap} "
            f"(the search's hard cap: every proposal on every task{', or the budget' if p.budget_rollouts else ''})")


EXPLORE = ("default", "explore")
SCHEDULE = {"greedy": "about", "paired": "up to", **dict.fromkeys(EXPLORE, "up to")}
LOWERS = {"paired": "racing stops clear losers early, so usually fewer",
          **dict.fromkeys(EXPLORE, "futility stops and the rollout cache lower it, usually well below")}


def looks(config: PlanConfig) -> int:
    """Candidates judged a round: `default` with a gate buys more, cheaper looks (harnessx/search/explore.py)."""
    return explore_settings(config).looks(config.proposals) if config.accept in EXPLORE else config.proposals


def explore_settings(config: PlanConfig) -> ExploreSettings:
    """`default`'s knobs with the user's --accept-option settings."""
    return ExploreSettings(**config.accept_options)


def divisor(config: PlanConfig) -> int:
    """alpha is split over the round's K proposals (paired); `default` moves at move_p, undivided."""
    return 1 if config.accept in EXPLORE else config.proposals


def sigma(config: PlanConfig) -> float:
    return math.sqrt(config.discordance / config.epochs)


def mde(config: PlanConfig, n: int) -> float:
    z = norm.ppf(1 - level(config)) + norm.ppf(config.power)
    return z * sigma(config) / math.sqrt(n)


def power(config: PlanConfig, n: int, delta: float) -> float:
    return float(norm.cdf(delta * math.sqrt(n) / sigma(config) - norm.ppf(1 - level(config))))


def level(config: PlanConfig) -> float:
    """The one-sided level a round decides at: alpha / divisor, or `explore`'s move_p (a move, not a test)."""
    return explore_settings(config).move_p if config.accept in EXPLORE else config.alpha / divisor(config)


def min_pairs(config: PlanConfig) -> int:
    """The fewest paired tasks on which the one-sided sign-flip test can reach p < alpha / divisor:
    its smallest p on N tasks is 2^-N (every difference positive)."""
    return math.floor(math.log2(1 / level(config))) + 1


def exact_power(n: int, p10: float, p01: float, alpha: float) -> float:
    """Exact power of the one-sided sign (McNemar) test of n pairs at level alpha.

    Pair outcomes: challenger-only success (p10), incumbent-only success (p01), else tied. Given D
    discordant pairs, reject when the challenger-only count X has P(X' >= X | D, 1/2) <= alpha.
    """
    p_disc = p10 + p01
    if not 0 <= p_disc <= 1:
        raise InputError("p10 + p01", f"got {p_disc}", "in [0, 1]")
    q = p10 / p_disc if p_disc else 0.0
    total = 0.0
    for d in range(n + 1):
        # smallest x with P(Bin(d, 1/2) >= x) <= alpha
        crit = next((x for x in range(d + 1) if binom.sf(x - 1, d, 0.5) <= alpha), None)
        if crit is not None:
            total += binom.pmf(d, n, p_disc) * binom.sf(crit - 1, d, q)
    return float(total)


def plan(config: PlanConfig) -> Plan:
    c = config
    per_candidate = c.tasks * c.epochs
    n = c.tasks  # every rule decides on the whole split (`default` at its last rung)
    per_round = (climb_rollouts(explore_settings(c), n, c.proposals) if c.accept in EXPLORE else c.proposals * n) * c.epochs
    budget = c.max_rollouts
    if c.max_cost is not None:
        dollars = math.floor(c.max_cost / c.cost_per_rollout + 1e-9)
        budget = dollars if budget is None else min(budget, dollars)
    budgeted = c.rounds is None and budget is not None  # rounds run until the budget cannot pay for another
    asked = rounds_limit(c.rounds, budgeted)
    rounds = asked if budget is None else max(0, min(asked, (budget - per_candidate) // max(per_round, 1)))
    testable = c.accept == "greedy" or n >= min_pairs(c)  # greedy accepts on the mean, without a test
    cap = per_candidate * (1 + asked * looks(c))
    expected = min(budget, cap) if budgeted else per_candidate + rounds * per_round
    result = Plan(c, per_candidate, n, per_round, expected, rounds, budget,
                  mde(c, n) if testable else math.inf,
                  (power(c, n, c.effect) if testable else 0.0) if c.effect is not None else None,
                  cap=min(cap, budget) if budget is not None else cap, budgeted=budgeted)
    if c.accept == "greedy":
        result.mde, result.power_at_effect = math.nan, None
    claim(result)
    if not testable:
        result.warnings.append(
            f"no proposal can be accepted: it is tested on {n} task(s), and a one-sided sign-flip test on N tasks has p >= 2^-N, so it needs at least "
            f"{min_pairs(c)} to reach alpha {c.alpha:g}/{divisor(c)}; use a larger search split")
    if budget is not None and budget < per_candidate:
        result.warnings.append(f"the budget ({budget} rollouts) does not cover R0's {per_candidate}")
    elif c.rounds is not None and rounds < c.rounds:
        result.warnings.append(f"the budget buys only {rounds} of the {c.rounds} rounds asked for")
    if c.effect is not None and testable and c.accept not in ("greedy", *EXPLORE) and result.mde > c.effect:
        need = math.ceil(c.epochs * (result.mde / c.effect) ** 2)
        result.warnings.append(
            f"this configuration cannot reliably detect {c.effect:+.3f} (MDE {result.mde:+.3f}, power "
            f"{result.power_at_effect:.2f} < {c.power}); about {need} seeds per task (--epochs) would, or fewer "
            f"proposals per round, or a rule whose rollouts share random draws (lower discordance)")
    return result


def claim_epochs(c: PlanConfig) -> int:
    return c.claim_epochs or c.epochs


def claim(result: Plan) -> None:
    """The claim's rollouts, MDE and power (one test at alpha on n_c tasks x E_c seeds), and a warning
    when it cannot certify --effect."""
    c = result.config
    if c.claim_tasks is None:
        return
    n, e = c.claim_tasks, claim_epochs(c)
    one = replace(c, proposals=1, accept="paired", epochs=e)  # divisor 1: one test at alpha, on E_c seeds
    result.claim_rollouts = 2 * n * e
    if n < min_pairs(one):
        result.claim_mde, result.claim_power = math.inf, 0.0 if c.effect is not None else None
        result.warnings.append(f"the claim cannot be certified: {n} task(s), and a one-sided sign-flip test on N "
                               f"tasks has p >= 2^-N, so it needs at least {min_pairs(one)} at alpha {c.alpha:g}")
        return
    result.claim_mde = mde(one, n)
    if c.effect is None:
        return
    result.claim_power = power(one, n, c.effect)
    if result.claim_mde > c.effect:
        need = math.ceil(e * (result.claim_mde / c.effect) ** 2)
        result.warnings.append(
            f"the claim cannot reliably certify {c.effect:+.3f} on {n} {c.claim_split} tasks x {e} seed(s) (MDE "
            f"{result.claim_mde:+.3f}, power {result.claim_power:.2f} < {c.power}); about {need} seeds per task "
            "(--certify-epochs) would, or a larger confirmation split")
