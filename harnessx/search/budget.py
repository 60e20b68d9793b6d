"""A search's plan, as its pre-flight prints it: the planner's figures (harnessx/search/planner.py)
for this search's split, rule, budget and claim, with the discordance estimated from R0's rollouts
already in the shared rollout cache (a pilot's or a previous run's) when there are any."""

from __future__ import annotations

from harnessx.search.discordance import (
    Discordance,
    DiscordanceSource,
    estimate_discordance,
)
from harnessx.search.planner import Plan, PlanConfig, plan


def search_plan(search, effect: float | None = None) -> Plan:
    """`search` is a harnessx.search.loop.Search before it runs; nothing is paid for."""
    c = search.config
    found = estimated_discordance(search)
    claim_tasks, why = search.certify.tasks(search.suite, search.objective)
    return plan(PlanConfig(tasks=search.plan()["tasks"], rounds=c.budget.rounds, proposals=c.budget.proposals,
                           epochs=c.run.epochs, alpha=c.run.alpha, accept=c.run.accept,
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
