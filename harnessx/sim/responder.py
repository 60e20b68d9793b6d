"""The LiteLLM custom-provider responder of `sim/<profile>`: one call in, one assistant message out.

It reads the messages, the tool schemas and the side channel `metadata["harnessx"]["sim"]`, derives
the episode decision (cached per episode key) and returns the next move, with a token count and an
optional simulated latency.
"""

from __future__ import annotations

import json
from functools import lru_cache

import litellm

import harnessx.sim.pairing as pairing
import harnessx.sim.policy as policy
import harnessx.sim.probes as probes
from harnessx.sim.conversation import read, text_tool_names
from harnessx.sim.cues import active_cues, handoff_text, mechanism, shifts
from harnessx.sim.decision import Decision, decide
from harnessx.sim.hooks import hook_for
from harnessx.sim.plan import Plan, build_plan
from harnessx.sim.profile import Profile, load_profile
from harnessx.sim.reply import reply as _reply

NO_CHANNEL = "I can only act inside a HarnessX episode (no simulator side channel was sent)."


@lru_cache(maxsize=4096)
def _plan(side_json: str, tools: frozenset[str] = frozenset()) -> Plan:
    return build_plan(json.loads(side_json), tools)


@lru_cache(maxsize=8192)
def _decision(profile_name: str, side_json: str, system: str, handoff: str, seed: int,
              tools: frozenset[str] = frozenset(), harness_id: str = "") -> tuple[Decision, dict]:
    profile = load_profile(profile_name)
    side = json.loads(side_json)
    cues = active_cues(system, "system") | active_cues(handoff, "handoff")
    shift = shifts(cues, profile)
    key = pairing.episode_seed(profile, side["task_id"], seed, system + handoff, harness_id)
    return decide(profile, side, _plan(side_json, tools), shift, key), shift


def _late_shifts(harness_messages: list[str], profile: Profile) -> dict[str, float]:
    cues: frozenset[str] = frozenset()
    for text in harness_messages[-2:]:
        cues |= active_cues(text, "check") | active_cues(text, "report")
    return shifts(cues, profile)


@lru_cache(maxsize=64)
def _free_pricing(model: str) -> None:
    """Price `sim/<model>` at zero in LiteLLM's table, sparing it a fuzzy model-info search per call."""
    litellm.model_cost.setdefault(f"sim/{model}", {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0,
                                                  "litellm_provider": "sim", "mode": "chat"})


def respond(model: str, messages: list[dict], tools: list[dict], metadata: dict) -> dict:
    profile = load_profile(model)
    _free_pricing(model)
    hx = (metadata or {}).get("harnessx") or {}
    side = hx.get("sim")
    if not side:
        return {"content": NO_CHANNEL, "usage": {"prompt_tokens": 0, "completion_tokens": 0}}
    if (hook := hook_for(side)) is not None:  # a benchmark's own simulated agent (sim/hooks.py)
        return hook.respond(profile, side, hx, messages, tools)
    conv = read(messages)
    side_json = json.dumps(side, sort_keys=True)
    handoff = handoff_text(conv.first_user)
    schemas = {t["function"]["name"]: t["function"].get("parameters") or {} for t in tools or []}
    names = frozenset(schemas) or text_tool_names(conv.system)
    harness_id = str(hx.get("harness", "")) if profile.pairing == "partial" else ""  # keeps the cache shared
    decision, shift = _decision(model, side_json, conv.system, handoff, int(hx.get("seed", 0)), names, harness_id)
    ctx = policy.Context(profile=profile, side=side, plan=_plan(side_json, names), decision=decision,
                         mechanism=mechanism(conv.system, names), conv=conv, shifts=shift,
                         late_shifts=_late_shifts(conv.harness_messages, profile), tools=schemas)
    role = hx.get("role", "agent")
    if role == "belief":
        move = probes.belief_move(ctx)
    elif role == "agent" and (at := probes.challenge_index(messages)) is not None:
        move = probes.challenge_move(ctx, messages, at)
    else:
        move = (policy.planner_move if role == "planner" else policy.report_move if role == "report"
                else policy.agent_move)(ctx)
    return _reply(move, messages, tools, conv.system, profile, decision, len(conv.calls) + conv.finals)
