"""`TerminalSuite`: the built-in generated suite, or the task directories under `tasks_dir`.

Options: `tasks_dir=PATH` (TB2/Harbor task directories), `sandbox="bwrap"|"unshare"|"docker"`
(default: bwrap when installed, else unshare), `image=NAME` (docker base image).
Task directories that cannot be loaded are never dropped or moved to a split: each is an invalid
task (`metadata["load_error"]`) listed under every split asked for, whose episode is an environment
failure excluded as `invalid_task` with its load error (file, field, expected); `load_errors` names
each one and its problem.
"""

from __future__ import annotations

from harnessx.envs.terminal.env import TerminalEnv
from harnessx.envs.terminal.loader import load_dir
from harnessx.envs.terminal.sandbox import NAMES, default_sandbox
from harnessx.errors import InputError, one_of
from harnessx.tasks import Task


class TerminalSuite:
    name = "terminal"

    def __init__(self, tasks_dir: str | None = None, sandbox: str | None = None, image: str | None = None):
        if sandbox is not None and sandbox not in NAMES:
            raise InputError("--sandbox", f"unknown sandbox {sandbox!r}", one_of(NAMES))
        self.sandbox = sandbox
        self.sandbox_options = {"image": image} if image else {}
        if tasks_dir:
            self._tasks, self.load_errors = load_dir(tasks_dir)
        else:
            from harnessx.envs.terminal.builtin.suite import builtin_tasks

            self._tasks, self.load_errors = builtin_tasks(), []

    def tasks(self, split: str | None = None) -> list[Task]:
        valid = [t for t in self._tasks if not t.metadata.get("load_error") and (split is None or t.split == split)]
        # an invalid dir's split is unknown: it is named (and excluded) in whichever split is evaluated
        invalid = [t if split is None else t.model_copy(update={"split": split})
                   for t in self._tasks if t.metadata.get("load_error")]
        return valid + invalid

    @property
    def rollout_identity(self) -> str:
        """What a rollout key holds about this environment's behaviour: the version of the episode's
        rules, bumped when they change meaning (v2: one persistent shell per episode; v3: agent ended
        and verifier in a sandbox of its own, episode limits), and the sandbox backend, so a cache
        never serves one backend's rollouts for another (None: the backend it resolves to here)."""
        return f"|terminal=shell-v3|sandbox={self.sandbox or default_sandbox()}"

    def make_env(self) -> TerminalEnv:
        return TerminalEnv(self.sandbox, self.sandbox_options)
