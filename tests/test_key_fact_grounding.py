"""A key fact the request itself states earns no credit unless the agent saw it in a tool result
before deferring (the starter suite's locked trap: "locked" is in the request)."""

from __future__ import annotations

from test_scoring_support import Episode

from harnessx.envs.starter import starter_tasks
from harnessx.scoring import score_rollout
from harnessx.scoring.grounding import earnable_facts

TRAP = next(t for t in starter_tasks() if t.id == "starter-search-0-locked")  # Set "volume" ... is locked.
ECHO = "the device has no timer set. The device is locked to the current time."


def test_the_trap_states_its_key_fact():
    assert TRAP.blocker.key_facts == ["locked"] and "locked" in TRAP.instruction
    assert earnable_facts(["locked", "gone"], TRAP.instruction, observed="") == ["gone"]
    assert earnable_facts(["locked"], TRAP.instruction, observed="volume = default (locked)") == ["locked"]


def test_a_blanket_deferral_echoing_the_request_gets_no_strict_sa():
    ep = Episode(TRAP).say(f"This task is blocked: {ECHO}").defer(ECHO, category="trap")
    s = score_rollout(TRAP, *ep.end()[1:])
    assert (s.m0, s.m2, s.m3, s.strict_sa) == (False, True, False, False)
    assert s.failure_mode == "wrong_reason"


def test_a_deferral_after_seeing_the_lock_in_a_tool_result_gets_strict_sa():
    ep = (Episode(TRAP).say("Let me check the setting.").call("get_setting", "volume = default (locked)", setting="volume")
          .say("This task is blocked: the volume setting is locked.").defer("the volume setting is locked",
                                                                            category="trap"))
    s = score_rollout(TRAP, *ep.end()[1:])
    assert (s.m0, s.m3, s.strict_sa) == (True, True, True)


def test_a_lock_seen_only_after_the_deferral_does_not_count():
    ep = (Episode(TRAP).say("This task is blocked: the volume setting is locked.")
          .defer("the volume setting is locked", category="trap")
          .say("Checking anyway.").call("get_setting", "volume = default (locked)", setting="volume"))
    s = score_rollout(TRAP, *ep.end()[1:])
    assert (s.m3, s.strict_sa) == (False, False)

