"""The `joint` veto, in one place: what a significant gain must not cost.

An objective over both strata (`joint`, `joint_clean`, FeasiGen's) is vetoed when either stratum
regresses significantly, or when the challenger's false abstention rises significantly on the
feasible tasks: an agent that acts and then defers keeps every solve and every strict-SA deferral,
so neither stratum regresses while it abandons every feasible task. A rule decides "significant"
with its own test (`harmed`): `paired` and `default` use a one-sided paired p-value (`p_harmed`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harnessx.search.acceptance import Paired

ABSTENTION = "false abstention"
Harmed = Callable[["Paired", "str | None"], bool]  # (paired values, stratum or None for all) -> significant harm


def abstention_paired(paired: Paired) -> Paired:
    """False abstention on the feasible tasks of `paired`, as values where lower is worse (1 − rate),
    so that a rise in false abstention is the same one-sided harm the strata are tested for."""
    from harnessx.search.acceptance import Paired

    ids = [t for t in paired.per_task if t in paired.abstain]
    return Paired({t: 1.0 - paired.abstain[t][0] for t in ids}, {t: 1.0 - paired.abstain[t][1] for t in ids},
                  {t: "feasible" for t in ids})


def vetoes(paired: Paired, strata: tuple[str, ...], harmed: Harmed) -> list[str]:
    """What vetoes a gain: each stratum that `harmed` finds regressed, and `false abstention` when it
    rose; nothing for a one-stratum objective (`sa`, KAPRO's, CF's)."""
    if len(strata) < 2:
        return []
    found = [s for s in strata if harmed(paired, s)]
    abstention = abstention_paired(paired)
    if abstention.per_task and harmed(abstention, None):
        found.append(ABSTENTION)
    return found


def p_harmed(alpha: float, method: str = "sign_flip") -> Harmed:
    """Harm at one-sided p < alpha (the paired sign-flip test)."""
    return lambda paired, stratum: paired.test(stratum, harm=True, method=method)[1] < alpha
