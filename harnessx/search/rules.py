"""The acceptance rules by name (`--accept`): the registry the loop and the CLI build a rule from.

The base class (harnessx/search/acceptance.py) never imports this module; a new rule is a module
with an `AcceptanceRule` subclass and one entry here.
"""

from __future__ import annotations

from harnessx.errors import InputError, one_of
from harnessx.search.acceptance import AcceptanceRule
from harnessx.search.explore import Explore
from harnessx.search.greedy import Greedy
from harnessx.search.names import DEFAULT_RULE  # the shipped default of `--accept`: an alias of `explore`
from harnessx.search.racing import PairedRacing

ACCEPTANCE: dict[str, type[AcceptanceRule]] = {DEFAULT_RULE: Explore, "explore": Explore, "greedy": Greedy,
                                               "paired": PairedRacing}
TAKES_ALPHA = tuple(name for name, rule in ACCEPTANCE.items() if rule.takes_alpha)


def make_acceptance(rule: str | AcceptanceRule, **options) -> AcceptanceRule:
    """A rule object, or its name (`default` = `explore`, `greedy` or `paired`), built with `options`."""
    if isinstance(rule, AcceptanceRule):
        return rule
    if not isinstance(rule, str):
        raise TypeError(f"an acceptance rule must derive from harnessx.search.acceptance.AcceptanceRule, "
                        f"not {type(rule).__name__}")
    if rule not in ACCEPTANCE:
        raise InputError("--accept", f"unknown acceptance rule {rule!r}", one_of(ACCEPTANCE))
    return ACCEPTANCE[rule](**options)
