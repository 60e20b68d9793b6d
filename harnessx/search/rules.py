"""The acceptance rules by name (`--accept`): the seam the loop and the CLI build a rule from.

A rule is an `AcceptanceRule` subclass (harnessx/search/acceptance.py, which never imports this
module), registered as an entry point of the group `harnessx.acceptance` or named by an import path
(`--accept package.module:Class`); see harnessx/search/names.py.
"""

from __future__ import annotations

from harnessx.search.acceptance import AcceptanceRule
from harnessx.search.names import DEFAULT_RULE, RULE_NAMES, RULE_REGISTRY

ACCEPTANCE = RULE_NAMES  # every registered rule's name; make_acceptance builds each


def rule_class(rule: str) -> type[AcceptanceRule]:
    """The rule class a name or an import path names (an InputError line when it cannot be had)."""
    return RULE_REGISTRY.load(rule)  # type: ignore[return-value]


def takes_alpha(rule: str) -> bool:
    """Whether the rule is built with `alpha=--alpha`."""
    return rule_class(rule).takes_alpha


def make_acceptance(rule: str | AcceptanceRule, **options) -> AcceptanceRule:
    """A rule object, or its name (`default` = `explore`, `greedy`, `paired`, a plug-in's) or import
    path, built with `options`."""
    if isinstance(rule, AcceptanceRule):
        return rule
    if not isinstance(rule, str):
        raise TypeError(f"an acceptance rule must derive from harnessx.search.acceptance.AcceptanceRule, "
                        f"not {type(rule).__name__}")
    return rule_class(rule)(**options)


__all__ = ["ACCEPTANCE", "DEFAULT_RULE", "make_acceptance", "rule_class", "takes_alpha"]
