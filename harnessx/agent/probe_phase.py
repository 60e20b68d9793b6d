"""The read-only phase an environment may ask for before its episode (`EnvStart.probe`).

One model call, no tools offered, nothing executed: the request text (the harness's component if
it has one, else the environment's template, with `{field}`s filled in) and the reply are recorded
in the trajectory as a harness message and an agent message with role `<probe.role>_request` /
`<probe.role>`, so a scorer can read the answer (KAPRO's knowing probe, digest §2.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harnessx.envs.base import ProbeRequest

if TYPE_CHECKING:
    from harnessx.agent.runtime import _Episode


def probe_text(probe: ProbeRequest, harness_text: str) -> str:
    text = harness_text or probe.template
    for name, value in probe.fields.items():
        text = text.replace("{" + name + "}", value)
    return text


async def read_only_probe(ep: "_Episode", probe: ProbeRequest) -> str:
    text = probe_text(probe, ep.harness.text(probe.component) if probe.component else "")
    messages = [{"role": "system", "content": probe.system}, {"role": "user", "content": text}]
    ep.traj.append("message", "harness", ep.step, role=f"{probe.role}_request", content=text)
    reply = await ep.ask(messages, probe.role, tools=False)
    ep.traj.append("message", "agent", ep.step, role=probe.role, content=reply.text)
    return reply.text
