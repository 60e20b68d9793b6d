"""The acceptance rules by name (`--accept`): the seam the loop and the CLI build a rule from.

A rule is an `AcceptanceRule` subclass (harnessx/search/acceptance.py, which never imports this
module), registered as an entry point of the group `harnessx.acceptance` or named by an import path
(`--accept package.module:Class`); see harnessx/search/names.py.
"""

from __future__ import annotations

import json
import math
from typing import Any

from harnessx.errors import InputError, one_of
from harnessx.search.acceptance import AcceptanceRule
from harnessx.search.names import DEFAULT_RULE, RULE_NAMES, RULE_REGISTRY

ACCEPT_OPTION = "--accept-option"
ACCEPTANCE = RULE_NAMES  # every registered rule's name; make_acceptance builds each


def rule_class(rule: str) -> type[AcceptanceRule]:
    """The rule class a name or an import path names (an InputError line when it cannot be had)."""
    return RULE_REGISTRY.load(rule)  # type: ignore[return-value]


def takes_alpha(rule: str) -> bool:
    """Whether the rule is built with `alpha=--alpha`."""
    return rule_class(rule).takes_alpha


def make_acceptance(rule: str | AcceptanceRule, settings: dict[str, Any] | None = None, **options) -> AcceptanceRule:
    """A rule object, or its name (`default` = `explore`, `greedy`, `paired`, a plug-in's) or import
    path, built with `options` (the loop's, e.g. alpha) and the user's `settings` (`--accept-option`),
    each of which must be one of the rule's `options()`: else one InputError line naming it."""
    if isinstance(rule, AcceptanceRule):
        return rule
    if not isinstance(rule, str):
        raise TypeError(f"an acceptance rule must derive from harnessx.search.acceptance.AcceptanceRule, "
                        f"not {type(rule).__name__}")
    cls = rule_class(rule)
    if not settings:
        return cls(**options)
    known = cls(**options).options()
    unknown = sorted(set(settings) - (set(known) - set(options)))  # alpha is --alpha's, not a setting
    if unknown:
        settable = sorted(set(known) - set(options))
        taken = [f"--{k}" for k in unknown if k in options]
        raise InputError(ACCEPT_OPTION, f"{rule} has no option {', '.join(unknown)}"
                         + (f" ({', '.join(taken)} sets it)" if taken else ""),
                         one_of(settable) + ("" if settable else f" ({rule} takes no option)"))
    for name, value in settings.items():  # a word where the rule's default is a number
        if _number(known[name]) and not _number(value):
            raise InputError(ACCEPT_OPTION, f"{name}={value!r}", f"a number (the default is {known[name]!r})")
    try:
        return cls(**{**options, **settings})
    except (TypeError, ValueError) as exc:  # a value of the wrong kind (a word where a number goes)
        raise InputError(ACCEPT_OPTION, f"{rule}: {exc}", "values of the kinds the rule's options take") from None


def as_json(settings: dict[str, Any]) -> dict[str, Any]:
    """A rule's settings as config.json holds them (a tuple as a list, a path as its text), so the
    record and a resume's settings compare alike."""
    return json.loads(json.dumps(settings, default=str))


def check_settings(rule: AcceptanceRule, settings: dict[str, Any]) -> None:
    """A rule object given in Python and the config's `accept_options` must not disagree: the rule
    runs, so a config setting it does not have would be silently dropped."""
    have = as_json(rule.options())
    differ = sorted(k for k, v in as_json(settings).items() if have.get(k, v) != v or k not in have)
    if differ:
        raise InputError("accept_options", f"{', '.join(f'{k}={settings[k]!r}' for k in differ)} but the rule "
                         f"given has {', '.join(f'{k}={have.get(k)!r}' for k in differ)}",
                         "the rule object's own settings, or none in the config")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_options(items: list[str] | None) -> dict[str, Any]:
    """`--accept-option name=value` items as a dict: a value is an int, a float, true/false, none, or
    else the word itself."""
    out: dict[str, Any] = {}
    for item in items or []:
        name, sep, text = item.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise InputError(ACCEPT_OPTION, f"got {item!r}", "name=value, e.g. move_p=0.3 or confirm=unseen")
        if name.strip() in out:
            raise InputError(ACCEPT_OPTION, f"{name.strip()} given twice", "each setting once")
        out[name.strip()] = _value(text.strip())
    return out


def _value(text: str) -> Any:
    words = {"true": True, "false": False, "none": None}
    if text.lower() in words:
        return words[text.lower()]
    for kind in (int, float):
        try:
            number = kind(text)
        except ValueError:
            continue
        if kind is float and not math.isfinite(number):
            raise InputError(ACCEPT_OPTION, f"got {text!r}", "a finite number")
        return number
    return text


__all__ = ["ACCEPTANCE", "DEFAULT_RULE", "as_json", "check_settings", "make_acceptance", "parse_options", "rule_class", "takes_alpha"]
