"""A simulated profile's contents are part of every rollout key: editing a profile YAML (or a field
kept out of the episode seeds, like `parallel_calls`) never serves the old behaviour's rollouts
from the shared cache."""

from __future__ import annotations

from harnessx.models.client import ModelClient
from harnessx.sim.profile import load_profile


def identity(path) -> str:
    load_profile.cache_clear()  # each CLI command is a new process; here the same one reloads
    return ModelClient(f"sim/{path}").identity


def test_editing_a_profile_changes_the_model_identity_and_so_every_rollout_key(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("name: mine\nextends: baseline\nrates: {false_abstain: 0.10}\n")
    first = identity(path)
    assert identity(path) == first  # unchanged file, same keys: the cache serves it
    path.write_text("name: mine\nextends: baseline\nrates: {false_abstain: 0.30}\n")
    assert identity(path) != first


def test_a_field_outside_the_episode_seeds_still_changes_the_identity(tmp_path):
    on, off = tmp_path / "on.yaml", tmp_path / "off.yaml"
    on.write_text("name: p\nextends: baseline\nparallel_calls: true\n")
    off.write_text("name: p\nextends: baseline\nparallel_calls: false\n")
    load_profile.cache_clear()
    assert load_profile(str(on)).digest == load_profile(str(off)).digest  # same draws
    assert identity(on).split("#")[1] != identity(off).split("#")[1]  # different replies: different keys


def test_a_real_model_identity_is_its_name_server_and_sampling():
    assert ModelClient("openai/m", api_base="http://127.0.0.1:1/v1").identity == "openai/m@http://127.0.0.1:1/v1"
