"""`RetailSuite`: the retail tasks and environments, from the built-in generator or τ²'s own files.

- `RetailSuite()` — generated database and the paired suite shaped by `environments/retail/`.
- `RetailSuite(tau2_dir=PATH)` — τ²'s database and policy instead; the paired suite is built over
  that database the same way. `tau2_tasks=True` adds τ²'s own tasks as feasible tasks
  (`tau2-<id>`; τ² train -> search, test -> heldout).
- `RetailSuite(tasks_file=PATH)` — tasks from a JSONL file written by `harnessx tasks build`.
- `user_mode`: `solo` (default), `scripted` or `llm` (with `user_model`, optional `user_api_base`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError

from harnessx.envs.retail.build import build_tasks, load_shape
from harnessx.envs.retail.env import RetailEnv
from harnessx.envs.retail.generator import CONFIG_DIR, generated_db, load_people
from harnessx.envs.retail.schema import RetailDB
from harnessx.envs.retail.tau2 import load_tau2, tau2_tasks_as_feasible
from harnessx.envs.retail.users import USER_MODES
from harnessx.errors import InputError, one_of
from harnessx.tasks import Task

POLICY_PATH = Path(__file__).parent / "policy.md"


def load_tasks_file(path: str | Path) -> list[Task]:
    """Tasks from JSONL, one per line; errors name the file, line and field."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "file not found", "a JSONL task file")
    tasks = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            tasks.append(Task.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise InputError(where, f"not valid JSON ({exc.msg})") from None
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "(top level)"
            raise InputError(where, f"field '{field}': {err['msg']}") from None
        if tasks[-1].env != "retail":
            raise InputError(where, f"field 'env' = {tasks[-1].env!r}", "'retail'")
    return tasks


@lru_cache(maxsize=4)
def _built(config_dir: str, tau2_dir: str | None) -> tuple[RetailDB, str, tuple[Task, ...]]:
    root = Path(config_dir)
    people, shape = load_people(root), load_shape(root / "suite.yaml")
    if tau2_dir is None:
        db, policy = generated_db(root), POLICY_PATH.read_text(encoding="utf-8")
    else:
        data = load_tau2(tau2_dir)
        db, policy = data.db, data.policy
    return db, policy, tuple(build_tasks(db, people, shape))


class RetailSuite:
    name = "retail"

    def __init__(self, config_dir: str | Path | None = None, tau2_dir: str | Path | None = None,
                 tau2_tasks: bool = False, tasks_file: str | Path | None = None, user_mode: str = "solo",
                 user_model: str | None = None, user_api_base: str | None = None):
        if user_mode not in USER_MODES:
            raise InputError("--user-mode", f"unknown user mode {user_mode!r}", one_of(USER_MODES))
        if user_mode == "llm" and not user_model:
            raise InputError("--user-model", "user mode 'llm' needs a user model", "a LiteLLM model string")
        root = str(Path(config_dir or CONFIG_DIR).resolve())
        tau2 = str(Path(tau2_dir).resolve()) if tau2_dir else None
        self.db, self.policy, built = _built(root, tau2)
        self._tasks = load_tasks_file(tasks_file) if tasks_file else list(built)
        if tau2_tasks:
            if tau2 is None:
                raise InputError("--tau2-tasks", "needs --tau2-dir")
            self._tasks += tau2_tasks_as_feasible(load_tau2(tau2))
        self.user_mode, self.user_model, self.user_api_base = user_mode, user_model, user_api_base

    @property
    def rollout_identity(self) -> str:
        """What a rollout key must hold about the customer: nothing for solo (keys as before), else the
        mode and the user model, so a scripted or LLM-user rollout is never served from a solo one."""
        if self.user_mode == "solo":
            return ""
        model = f"{self.user_model}@{self.user_api_base}" if self.user_api_base else self.user_model
        return f"|user={self.user_mode}" + (f":{model}" if self.user_mode == "llm" else "")

    def tasks(self, split: str | None = None) -> list[Task]:
        return [t for t in self._tasks if split is None or t.split == split]

    def make_env(self) -> RetailEnv:
        client = None
        if self.user_mode == "llm":
            from harnessx.models.client import ModelClient  # LiteLLM loads only when an LLM user is used

            client = ModelClient(self.user_model, api_base=self.user_api_base)
        return RetailEnv(self.db, self.policy, self.user_mode, client)
