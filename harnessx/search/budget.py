"""A search's budget: its plan, as its pre-flight prints it (the planner's figures,
harnessx/search/planner.py, for this search's split, rule, budget and claim, with the discordance
estimated from R0's rollouts already in the shared rollout cache, a pilot's or a previous run's, when
there are any), and, while it runs, what the budget has left and whether it pays for another round."""

from __future__ import annotations

from harnessx.search.acceptance import AcceptanceRule
from harnessx.search.config import BudgetConfig
from harnessx.search.explore import Explore
from harnessx.search.discordance import (
    Discordance,
    DiscordanceSource,
    estimate_discordance,
)
from harnessx.search.names import DEFAULT_ROUNDS
from harnessx.search.planner import Plan, PlanConfig, plan


def search_plan(search, effect: float | None = None) -> Plan:
    """`search` is a harnessx.search.loop.Search before it runs; nothing is paid for."""
    c = search.config
    found = estimated_discordance(search)
    claim_tasks, why = search.certify.tasks(search.suite, search.objective)
    return plan(PlanConfig(tasks=search.plan()["tasks"], rounds=c.budget.rounds, proposals=c.budget.proposals,
                           epochs=c.run.epochs, alpha=c.run.alpha, accept=c.run.accept,
                           accept_options=search.acceptance.options() if isinstance(search.acceptance, Explore) else {},
                           max_rollouts=c.budget.max_rollouts, effect=effect,
                           discordance=found.value, discordance_source=found.source,
                           claim_tasks=None if why else len(claim_tasks), claim_epochs=search.certify.epochs,
                           claim_split=search.certify.split or "none"))


def estimated_discordance(search) -> Discordance:
    """From R0's rollouts in the shared cache of the search's runs directory, else ASSUMED."""
    c = search.config
    return estimate_discordance(DiscordanceSource(search.suite, search.model, search.space.initial(),
                                                  search.objective.tasks(search.tasks), search.objective, c.run.seed,
                                                  c.run.epochs, c.tracking.runs_dir))


def budget_left(budget: BudgetConfig, arena) -> int | None:
    """Rollouts the budget still pays for: --max-rollouts less those paid, and --max-cost's dollars
    left at the mean cost per rollout so far (None: no budget, or none known before a rollout has
    cost anything). `arena` is the search's (its `rollouts` and `cost` so far)."""
    left = []
    if budget.max_rollouts is not None:
        left.append(budget.max_rollouts - arena.rollouts)
    if budget.max_cost is not None and arena.rollouts and arena.cost > 0:
        left.append(int((budget.max_cost - arena.cost) / (arena.cost / arena.rollouts)))
    return max(min(left), 0) if left else None


def round_proposals(budget: BudgetConfig, rule: AcceptanceRule, arena, seeds: int, round_no: int) -> tuple[int, str | None]:
    """How many proposals (`--proposals` units, before the rule's `looks`) round `round_no` may have,
    and, when fewer than asked, why. With --rounds (a budget only caps them) or no budget: all of
    them. In a budget-driven search (a budget, no --rounds): the most whose round the rest of the
    budget covers at the rule's most (its `round_rollouts` on the arena's tasks, times the seeds),
    so no round is cut off half-judged and the budget's last rollouts buy a narrower round rather
    than none; 0: the round does not start. A dollar budget over rollouts that cost nothing so far (a
    simulated model) bounds nothing: then the rounds are DEFAULT_ROUNDS, as without a budget."""
    asked = budget.proposals
    if not budget.budgeted:
        return asked, None
    left = budget_left(budget, arena)
    if left is None:
        return (asked, None) if round_no <= DEFAULT_ROUNDS else (
            0, f"--max-cost bounds nothing at $0 per rollout so far: {DEFAULT_ROUNDS} rounds, as without a budget")
    def need(k: int) -> int:
        return rule.round_rollouts(len(arena.tasks), k) * seeds
    fits = next((k for k in range(asked, 0, -1) if need(k) <= left), 0)
    if fits == asked:
        return asked, None
    if fits:
        return fits, (f"{left} rollouts left pay for {fits} of {asked} proposals (a round of {asked} may need up "
                      f"to {need(asked)})")
    return 0, (f"{left} rollouts left, and a round may need up to {need(1)} "
               "(the budget sets how many rounds run: no --rounds)")
