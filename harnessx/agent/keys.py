"""Rollout keys: the one place that says what makes two rollouts the same.

A key covers the harness (its content hash), the task (its id and a digest of its whole
definition), the epoch seed and the model identity (planner and executor models, a simulated
profile's behaviour, a suite's own identity such as retail's LLM user). The runner caches by it, a
queue worker recomputes it to check that it runs the search's setup, and the search arena counts
what it has paid for by it.
"""

from __future__ import annotations

import hashlib

from harnessx.envs.base import Suite
from harnessx.harness.model import Harness
from harnessx.models.client import ModelClient
from harnessx.tasks import Task


def rollout_key(harness: Harness, task: Task, seed: int, model: str, challenge: str | None = None) -> str:
    task_digest = hashlib.sha256(task.model_dump_json().encode()).hexdigest()[:12]
    raw = f"{harness.hash}|{task.id}|{task_digest}|{seed}|{model}" + (f"|challenge:{challenge}" if challenge else "")
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


def rollout_model_id(model: ModelClient, suite: Suite, planner_model: ModelClient | None = None) -> str:
    """The model part of a rollout key (a queue worker recomputes it to check it runs the search's setup)."""
    model_id = f"{planner_model.identity}->{model.identity}" if planner_model else model.identity
    return model_id + getattr(suite, "rollout_identity", "")  # e.g. retail's LLM user (not a solo rollout)
