"""The simulated agent on Confident Fools items: search or not, answer, abstain, in `{choice, reason}`.

It acts only through what a real model gets (the question and options in the user prompt, the
`web_search` tool if offered, the search results) plus the side channel's gold (the item's type,
key, rationale and a query that finds its article). After a search it reads the answer from the
result that best matches the question, so a search that retrieves the wrong article fails.

Rates (profile `rates`, defaults in `cf.yaml`; a profile states only what it changes), under the
paper's prompts: `cf_search_ok` {cued, uncued} and `cf_search_ik` (searches when it can), `cf_abstain_ok` /
`cf_abstain_ik` (abstains when answering from memory), `cf_know_ik` (right on IK from memory),
`cf_guess_ok` (right on OK from memory: priors and elimination), `cf_read` (reads the right option
from a relevant hit), `cf_aligned` (a correct answer's reason restates the grounds),
`cf_malformed` / `cf_malformed_retry` (a reply that is not the JSON asked for, first / after a
JSON-only request). Cues in `cues.yaml` (`cf_*`) shift them on the logit scale.
"""

from __future__ import annotations

import json
import math
import random
import re
from functools import lru_cache
from pathlib import Path

import yaml

from harnessx.sim.conversation import Conversation, read, text_tool_names
from harnessx.sim.cues import active_cues, cue_table, shifts
from harnessx.sim.decision import Decision
from harnessx.sim.moves import Move
from harnessx.sim.profile import Profile, stable_seed
from harnessx.sim.reply import reply

SEARCH_TOOL = "web_search"
RATES_FILE = Path(__file__).with_name("cf.yaml")
RATE_PREFIX, RATE_TABLE = "cf_", RATES_FILE  # sim/hooks.py


@lru_cache(maxsize=1)
def defaults() -> dict[str, float | dict[str, float]]:
    """The cf_* rates a profile does not state (`cf.yaml`)."""
    data = yaml.safe_load(RATES_FILE.read_text(encoding="utf-8"))["rates"]
    return {f"cf_{name}": value for name, value in data.items()}


# What the simulated agent notices as "this is about recent events" (the digest's cue words).
RECENT = re.compile(r"\b(20[2-9]\d|november|recent(ly)?|latest|current(ly)?|this week|today)\b", re.IGNORECASE)
_OPTION = re.compile(r"^([1-5]):\s*(.*)$", re.MULTILINE)
_QUESTION = re.compile(r"^Question:\s*(.*)$", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z0-9$]+")


def gold_of(side: dict) -> dict | None:
    """The CF gold in the side channel (`reference.final_answer` JSON with a `cf` key), if any."""
    raw = (side.get("reference") or {}).get("final_answer")
    if not raw or '"cf"' not in raw:
        return None
    try:
        gold = json.loads(raw).get("cf")
    except (json.JSONDecodeError, AttributeError):
        return None
    return gold if isinstance(gold, dict) else None


def rate(profile: Profile, name: str, shift: dict[str, float], sub: str | None = None) -> float:
    value = profile.rates.get(name, defaults()[name])
    if isinstance(value, dict):
        value = value[sub]
    p = min(max(float(value), 1e-4), 1 - 1e-4)
    return 1 / (1 + math.exp(-(math.log(p / (1 - p)) + shift.get(name, 0.0))))


def read_question(first_user: str) -> tuple[str, dict[int, str]]:
    """The question and options of the paper's user prompt (wherever a harness's task_prompt put it)."""
    match = _QUESTION.search(first_user)
    tail = first_user[match.start():] if match else first_user
    return (match.group(1).strip() if match else ""), {int(n): text.strip() for n, text in _OPTION.findall(tail)}


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def pick_from_results(results: str, question: str, options: dict[int, str]) -> int | None:
    """The option stated by the hit that best matches the question (None: no hit states one)."""
    hits = [h for h in re.split(r"\n\n(?=\[\d+\])", results) if h.strip()]
    if not hits:
        return None
    q = _words(question)
    best = max(hits, key=lambda h: len(q & _words(h)))  # first hit wins ties (rank order)
    found = [n for n, text in options.items() if n <= 4 and
             re.search(r"(?<![\w$])" + re.escape(text) + r"(?!\w)", best, re.IGNORECASE)]
    return max(found, key=lambda n: len(options[n])) if found else None


def move(profile: Profile, side: dict, gold: dict, conv: Conversation, tools: set[str], seed: int) -> tuple[Move, int]:
    """The next move on a CF item and the episode seed (for the reply's token draws)."""
    question, options = read_question(conv.first_user)
    # harness text acts through cues wherever it is: the system prompt or the task_prompt around the item
    shift = shifts(active_cues(conv.system, "system") | active_cues(conv.first_user, "system"), profile)
    key = stable_seed("cf", profile.name, profile.digest, cue_table().version, side["task_id"], seed, conv.system,
                      conv.first_user)
    rng = random.Random(key)
    u = {name: rng.random() for name in ("search", "abstain", "know", "read", "aligned", "pick", "m0", "m1", "m2")}
    kind, answer = gold["kind"], int(gold["key"])
    if SEARCH_TOOL in tools and not conv.calls:
        wants = (u["search"] < rate(profile, "cf_search_ok", shift, "cued" if RECENT.search(question) else "uncued")
                 if kind == "OK" else u["search"] < rate(profile, "cf_search_ik", shift))
        if wants:
            actions = (side.get("reference") or {}).get("actions") or []
            query = actions[0]["arguments"]["query"] if actions else question
            return Move(call=(SEARCH_TOOL, {"query": query})), key
    wrong = [n for n in options if n not in (answer, 5)]
    distractor = wrong[int(u["pick"] * len(wrong))] if wrong else 5
    if conv.results and kind == "OK":
        found = pick_from_results(conv.results[-1], question, options)
        choice = 5 if found is None else found if u["read"] < rate(profile, "cf_read", shift) else distractor
    elif kind == "IK":
        choice = (5 if u["abstain"] < rate(profile, "cf_abstain_ik", shift)
                  else answer if u["know"] < rate(profile, "cf_know_ik", shift) else distractor)
    else:
        choice = (5 if u["abstain"] < rate(profile, "cf_abstain_ok", shift)
                  else answer if u["know"] < rate(profile, "cf_guess_ok", shift) else distractor)
    if choice == 5:
        reason = "I do not have information about this."
    elif choice == answer and u["aligned"] < rate(profile, "cf_aligned", shift):
        reason = str(gold.get("rationale", ""))
    else:
        reason = f"I believe it is {options.get(choice, 'this option')}."
    attempt = min(conv.finals, 2)
    malformed = u[f"m{attempt}"] < rate(profile, "cf_malformed" if attempt == 0 else "cf_malformed_retry", shift)
    text = f"The answer is option {choice}. {reason}" if malformed else json.dumps({"choice": choice, "reason": reason})
    return Move(text), key


def claims(side: dict) -> bool:
    """A Confident Fools item (sim/hooks.py)."""
    return gold_of(side) is not None


def respond(profile: Profile, side: dict, hx: dict, messages: list[dict], tools: list[dict]) -> dict:
    """The next move on a Confident Fools item, as the assistant message."""
    conv = read(messages)
    names = frozenset(t["function"]["name"] for t in tools or []) or text_tool_names(conv.system)
    cf_move, cf_seed = move(profile, side, gold_of(side), conv, set(names), int(hx.get("seed", 0)))
    return reply(cf_move, messages, tools, conv.system, profile, Decision(seed=cf_seed), len(conv.calls) + conv.finals)
