"""`sim/<profile>`: the simulated task agent, HarnessX's offline default model.

It is a tool for testing pipelines, sizing budgets and statistical power, and demonstrating the
search with no API key; its scores are never a model's result. It is served through LiteLLM's
custom-provider API, so it takes the path a real model takes: messages and tool schemas in, an
assistant message (text and tool calls) out.

What it reads:
- the messages (rendered harness, task, tool results, self-checks, report requests) and the tool
  schemas, exactly as a real model gets them;
- the side channel `metadata["harnessx"]["sim"]`, which `harnessx.agent.runtime.sim_side_channel`
  adds only when the model is simulated (a real model never receives it): `task_id`, `feasible`,
  `family`, `reference` (gold `actions` [{name, arguments}] and `final_answer`), `blocker` (id,
  description, key_facts) and `evidence` (where, tool, args, marker); plus `metadata["harnessx"]`'s
  `seed`, `role` (agent / planner / executor / report) and `step`.

How a harness affects it: only through text, via the versioned cue table `cues.yaml` (phrases ->
logit shifts on the profile's rates) and the certified action the prompt offers (tool / file /
STOP token). Profiles (`profiles/*.yaml`): `baseline` (default), `weak`, `ideal`.

Probes (`probes.py`, data in `probes.yaml`): role `belief` answers the read-only feasibility
report with `P(feasible) = p`; a neutral reconsideration request after the run (the challenge
probe) is answered by standing by, withdrawing a certified deferral, or certifying a seen blocker.
"""

from harnessx.models.providers import register_identity, register_preflight, register_provider
from harnessx.sim.cues import cue_table
from harnessx.sim.profile import Profile, load_profile, profile_names, register_profile
from harnessx.sim.responder import respond

register_provider("sim", respond)
register_preflight("sim", load_profile)  # raises InputError naming the profile file and field
register_identity("sim", lambda name: f"{load_profile(name).behaviour_digest}.{cue_table().version}")

__all__ = ["Profile", "load_profile", "profile_names", "register_profile", "respond"]
