"""The read-only phase an environment may ask for before its episode (`EnvStart.probe`).

One model call, no tools offered, nothing executed: the request text (the environment's template,
or the harness's component — see `probe_text` — with `{field}`s filled in) and the reply are recorded
in the trajectory as a harness message and an agent message with role `<probe.role>_request` /
`<probe.role>`, so a scorer can read the answer (KAPRO's knowing probe, digest §2.3).
"""

from __future__ import annotations

from typing import Protocol

from harnessx.envs.base import ProbeRequest
from harnessx.harness.model import Harness
from harnessx.models.client import ModelReply
from harnessx.trajectory import Trajectory


class ProbeHost(Protocol):
    """What the probe phase needs from the episode that runs it (the runtime's episode)."""

    harness: Harness
    traj: Trajectory
    step: int

    async def ask(self, messages: list[dict], role: str, tools: bool = True) -> ModelReply: ...


def probe_text(probe: ProbeRequest, harness_text: str) -> str:
    """The harness text replaces the template when it uses the template's `{field}`s; otherwise it
    is added after the template as extra instructions (so a clause edit keeps the probe whole)."""
    uses_fields = any("{" + name + "}" in harness_text for name in probe.fields)
    text = harness_text if uses_fields else "\n\n".join(p for p in (probe.template, harness_text.strip()) if p)
    for name, value in probe.fields.items():
        text = text.replace("{" + name + "}", value)
    return text


async def read_only_probe(ep: ProbeHost, probe: ProbeRequest) -> str:
    text = probe_text(probe, ep.harness.text(probe.component) if probe.component else "")
    messages = [{"role": "system", "content": probe.system}, {"role": "user", "content": text}]
    ep.traj.append("message", "harness", ep.step, role=f"{probe.role}_request", content=text)
    reply = await ep.ask(messages, probe.role, tools=False)
    ep.traj.append("message", "agent", ep.step, role=probe.role, content=reply.text)
    return reply.text
