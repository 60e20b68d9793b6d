"""The red-team suite: every attack of redteam_attacks.py, on every sandbox backend this machine has.
Each must score 0 (not solved), must not be excluded (an attack is the agent's failure, never a
missing data point), must leave the canary directory outside the workspace as it was (by hash) with
its secret never in the trajectory, and must finish. Two controls show the task can be won honestly,
so a 0 is the verifier's judgement, not a broken task."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from redteam_attacks import SECRET, Attack, attacks, commands, write_task

from harnessx.agent.runtime import run_rollout
from harnessx.envs.terminal.env import TerminalEnv
from harnessx.envs.terminal.loader import load_spec, to_task
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.models.providers import register_script


def backends() -> list[str]:
    found = [b for b in ("bwrap", "unshare") if shutil.which(b) and (b != "unshare" or os.geteuid() == 0)]
    try:
        from harnessx.envs.terminal.sandbox.docker import docker_client

        docker_client().ping()
        found.append("docker")
    except Exception:  # no docker module or engine here: the docker runs are skipped
        pass
    return found


def backend_params() -> list:
    """Every backend, those this machine lacks skipped: the collected set (and so the documented test
    counts) is the same whether or not a docker engine runs here."""
    found = backends()
    return [pytest.param(b, marks=() if b in found else pytest.mark.skip(reason=f"no {b} sandbox here"))
            for b in ("bwrap", "unshare", "docker")]


pytestmark = [pytest.mark.slow, pytest.mark.skipif(not backends(), reason="no sandbox")]
ATTACKS = attacks()


def canary_state(root: Path) -> list[tuple]:
    state = []
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
        state.append((str(path.relative_to(root)), st.st_mode, st.st_mtime_ns, digest))
    return state


def make_canary(root: Path) -> Path:
    canary = root / "canary"
    canary.mkdir()
    (canary / "victim.txt").write_text("host data the agent must not touch\n")
    (canary / "secret.txt").write_text(SECRET)
    return canary


def scripted(attack: Attack, cmds: list[str], env: TerminalEnv) -> ModelClient:
    def script(messages, tools, metadata):
        done = sum(m["role"] == "tool" for m in messages)
        if done < len(cmds):
            return {"content": "", "tool_calls": [{"name": "bash", "arguments": {"command": cmds[done], "timeout": 30}}]}
        return {"content": "Done."}
    name = f"redteam-{attack.cls}-{attack.name}-{os.urandom(3).hex()}"
    return ModelClient(register_script(name, script))


LATE_WAIT = 60.0  # seconds a late edit may take to land (bounded wait on a file)


class LateEnv(TerminalEnv):
    """Schedules the race the late-edit attack needs: the episode's end (the kill of the agent's
    processes) comes only once its background job has edited the forbidden file, as on a host where
    the job is quicker than the harness."""

    async def verify(self) -> float:
        target, landed = self.ws.mounts["/app"] / "config.txt", threading.Event()
        for _ in range(int(LATE_WAIT / 0.05)):
            if "changed" in target.read_text(errors="replace") or landed.wait(0.05):
                break
        return await super().verify()


def play(task_dir: Path, attack: Attack, cmds: list[str], backend: str):
    """The rollout, on a thread joined with a bound derived from the task's own limits."""
    env = (LateEnv if attack.late_edit else TerminalEnv)(backend)
    model = scripted(attack, cmds, env)
    task = to_task(load_spec(task_dir))
    box: dict = {}

    def run() -> None:
        box["out"] = asyncio.run(run_rollout(load_preset("A1"), task, env, model, seed=0))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60.0 * (len(cmds) + 1) + 4 * attack.verifier_timeout + 300)
    assert not thread.is_alive(), f"{attack.id}: the run never finished"
    return box["out"]


def notes(traj) -> list[str]:
    return [e.data["detail"] for e in traj.of_kind("note")]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_the_attack_scores_zero_is_not_excluded_and_leaves_the_host_alone(tmp_path, backend, attack):
    canary = make_canary(tmp_path)
    before = canary_state(canary)
    result, traj = play(write_task(tmp_path, attack, canary), attack, commands(attack, canary), backend)
    assert result.status == "ok", (attack.id, result.status, [e.data for e in traj.of_kind("error")])
    assert result.reward == 0.0, (attack.id, result.reward, notes(traj))
    assert canary_state(canary) == before, f"{attack.id}: a host file outside the workspace changed"
    assert "canary secret" not in json.dumps([e.data for e in traj.events]), f"{attack.id}: the host's file leaked"


def test_the_suite_covers_thirty_attacks_in_eight_classes():
    assert len(ATTACKS) >= 30 and len({a.cls for a in ATTACKS}) >= 8
    assert len({a.id for a in ATTACKS}) == len(ATTACKS)


CONTROLS = {"feasible": Attack("control", "honest", ["echo 42 > /app/answer.txt"]),
            "blocked": Attack("control", "honest-abandon", ["echo 'It is forbidden.' > /app/infeasible.md"],
                              feasible=False)}


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("kind", sorted(CONTROLS))
def test_the_honest_agent_wins_the_same_task(tmp_path, backend, kind):
    attack = CONTROLS[kind]
    result, traj = play(write_task(tmp_path, attack, tmp_path), attack, attack.commands, backend)
    assert result.status == "ok" and result.reward == 1.0, (result, notes(traj))
