"""Services and helpers for the scale-out tests: a PostgreSQL database per test, a local Ray
instance per module, a fixed-latency simulated model, and suites whose environment fails or whose
worker dies on purpose.

PostgreSQL comes from `HARNESSX_PG_URL` (`.ci/run` starts one with `.ci/postgres.sh` and exports
it). Without it, or without the [postgres] extra, these tests skip, and fail under
HARNESSX_REQUIRE_POSTGRES=1; the Ray ones skip without the [ray] extra, and fail under
HARNESSX_REQUIRE_RAY=1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from conftest import require

from harnessx.envs.toy import ToyEnv, ToySuite

REPO = Path(__file__).resolve().parent.parent
PG_ENV = "HARNESSX_PG_URL"
LATENCY_S = 0.02  # per model call of the simulated agent: fixed, so rollouts wait like real calls


def fixed_latency_model(tmp: Path, latency_s: float = LATENCY_S) -> str:
    """A `sim/<path>` profile: the baseline simulated agent with a fixed per-call latency."""
    path = tmp / f"sim-fixed-{int(latency_s * 1000)}ms.yaml"
    path.write_text(f"extends: baseline\nlatency: {{dist: fixed, mean_s: {latency_s}}}\n")
    return f"sim/{path}"


@pytest.fixture
def pg_databases():
    """Makes fresh, empty PostgreSQL databases (one per store: Optuna and MLflow each keep their own
    alembic version table); all are dropped after the test."""
    require("postgres")  # the [postgres] extra and a server at HARNESSX_PG_URL, asked before importing psycopg
    import psycopg

    admin = os.environ[PG_ENV]
    made: list[str] = []

    def make() -> str:
        name = f"hx_test_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return admin.rsplit("/", 1)[0] + f"/{name}"

    yield make
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in made:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url(pg_databases):
    """A fresh, empty PostgreSQL database for one test."""
    return pg_databases()


@pytest.fixture(scope="module")
def ray_local():
    """A private local Ray with 4 logical CPUs (rollouts mostly wait on the model), stopped after the module."""
    require("ray")
    import ray.cloudpickle  # binds `ray` too
    import scale_services

    ray.cloudpickle.register_pickle_by_value(scale_services)  # the test suites below, on Ray's workers
    ray.init(address="local", num_cpus=4, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


class FlakyEnv(ToyEnv):
    """The toy environment with two faults: resetting any `*-missing` task raises (an environment
    failure), and the first time it runs a tool for `toy-0` it kills its whole process (a worker dying
    mid-rollout); the marker file makes every later attempt succeed."""

    def __init__(self, marker: str | None):
        super().__init__()
        self.marker = marker

    async def reset(self, task, abandon):
        if task.id.endswith("-missing"):
            raise OSError(f"sandbox for {task.id} could not start")
        return await super().reset(task, abandon)

    async def execute(self, call):
        if self.marker and self.task is not None and self.task.id == "toy-0" and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(1)
        return await super().execute(call)


class FlakySuite(ToySuite):
    def __init__(self, marker: str | None = None):
        super().__init__()
        self.marker = marker

    def make_env(self):
        return FlakyEnv(self.marker)


WALL_CLOCK = {"latency_s", "duration_s", "queue_s", "model_s", "tool_s", "agent_s"}  # timings, not behaviour


def _events(traj) -> list[tuple]:
    """A trajectory's events without their times (the hash chain covers times, so heads differ run to run)."""
    return [(e.kind, e.step, e.author, {k: v for k, v in e.data.items() if k not in WALL_CLOCK}) for e in traj]


def facts(runner, results):
    """What a rollout produced, minus wall-clock: status, reward, usage, steps, stop reason, every event."""
    return sorted(((r.key, r.status, r.reward, r.usage.model_dump_json(), r.steps, r.stop_reason, r.abandoned_by),
                   repr(_events(runner.trajectory(r)))) for r in results)


def workers(n, *args):
    """n `harnessx worker` processes (stopped by the caller, by their PIDs)."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return [subprocess.Popen([sys.executable, "-m", "harnessx.cli.main", "worker", *args, "--wait", "180"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(n)]


def answered(output: str) -> int:
    """The worker's closing count of rollouts it answered."""
    return int(" ".join(output.split()).split(" rollouts answered")[0].rsplit(" ", 1)[-1])
