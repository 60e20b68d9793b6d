"""Key facts a rationale may earn. On a task whose evidence is an observation, a key fact the
request states earns no credit unless the agent saw it in a tool result before deferring; on a
spec-evidence task the request is the evidence. The starter suite's locked trap shows its lock only
through `get_setting`, so a blanket deferral that guesses "locked" is not timely."""

from __future__ import annotations

from test_scoring_support import Episode

from harnessx.envs.starter import starter_tasks
from harnessx.scoring import score_rollout
from harnessx.scoring.grounding import earnable_facts, grounded_task
from harnessx.tasks import Evidence

TRAP = next(t for t in starter_tasks() if t.id == "starter-search-0-locked")  # Set "volume" to "7".
ECHO = "the device has no timer set. The device is locked to the current time."
# the same trap as it was built before: the request states the lock, the evidence is an observation
STATED = TRAP.model_copy(update={"instruction": TRAP.instruction + ' The "volume" setting is locked.'})


def test_the_trap_shows_its_lock_only_through_a_tool():
    assert TRAP.blocker.key_facts == ["locked"] and "locked" not in TRAP.instruction
    assert TRAP.evidence.where == "observation"
    assert earnable_facts(["locked", "gone"], STATED.instruction, observed="") == ["gone"]
    assert earnable_facts(["locked"], STATED.instruction, observed="volume = default (locked)") == ["locked"]


def test_a_blanket_deferral_guessing_the_lock_gets_no_strict_sa():
    ep = Episode(TRAP).say(f"This task is blocked: {ECHO}").defer(ECHO, category="trap")
    s = score_rollout(TRAP, *ep.end()[1:])
    assert (s.m2, s.strict_sa) == (False, False)  # deferred before the evidence: not timely


def test_a_fact_the_request_states_is_not_earned_by_echoing_it():
    ep = Episode(STATED).say(f"This task is blocked: {ECHO}").defer(ECHO, category="trap")
    s = score_rollout(STATED, *ep.end()[1:])
    assert (s.m0, s.m3, s.strict_sa) == (False, False, False)


def test_a_deferral_after_seeing_the_lock_in_a_tool_result_gets_strict_sa():
    for task in (TRAP, STATED):
        ep = (Episode(task).say("Let me check the setting.")
              .call("get_setting", "volume = default (locked)", evidence=True, setting="volume")
              .say("This task is blocked: the volume setting is locked.")
              .defer("the volume setting is locked", category="trap"))
        s = score_rollout(task, *ep.end()[1:])
        assert (s.m0, s.m3, s.strict_sa) == (True, True, True), task.instruction


def test_a_lock_seen_only_after_the_deferral_does_not_count():
    ep = (Episode(STATED).say("This task is blocked: the volume setting is locked.")
          .defer("the volume setting is locked", category="trap")
          .say("Checking anyway.").call("get_setting", "volume = default (locked)", evidence=True, setting="volume"))
    s = score_rollout(STATED, *ep.end()[1:])
    assert (s.m3, s.strict_sa) == (False, False)


def test_on_a_spec_task_the_request_is_the_evidence():
    spec = STATED.model_copy(update={"evidence": Evidence(where="spec")})
    ep = Episode(spec)
    assert grounded_task(spec, ep.traj, None) is spec  # its key facts are all earnable
