"""With a simulated profile where one known edit truly helps (by the simulator's Monte-Carlo ground
truth), the `rules` search selects a harness within a stated margin of the best reachable one."""

from __future__ import annotations

import asyncio

import pytest
import yaml

from harnessx.envs.toy import ToySuite
from harnessx.search import Search, SearchConfig, load_space
from harnessx.ground_truth import ground_truth
from harnessx.sim import load_profile, register_profile

MARGIN = 0.06  # joint, in ground-truth units (≈ 2 SE of a 10-epoch estimate on 36 tasks)
HELPFUL = "Before acting, verify the prerequisites: check that every key the task needs exists."


def prerequisites_world(tmp_path, name: str = "prerequisites-help"):
    """A simulated profile where the HELPFUL clause truly helps, and a space offering it among neutral
    clauses: (profile, registered model, space path)."""
    profile = load_profile("baseline").model_copy(update={
        "name": name,
        "cue_effects": {"verify_prerequisites": {"recognize": 2.0, "act": 2.5, "certify": 2.5, "false_abstain": 0.0}}})
    model = register_profile(profile)
    blocked_modes = ["deferred_without_certified_action", "proceeded", "fabricated", "wrong_result"]
    space = {"name": "prerequisites", "r0": "A1", "libraries": {
        "prerequisites": {"component": "system_prompt", "addresses": blocked_modes, "clauses": [
            {"id": "be-careful", "text": "Be careful and thorough with the task."},
            {"id": "verify", "text": HELPFUL}]},
        "tone": {"component": "system_prompt", "addresses": blocked_modes, "clauses": [
            {"id": "polite", "text": "Be polite to the customer."},
            {"id": "brief", "text": "Keep your messages brief."}]}}}
    path = tmp_path / "prerequisites.yaml"
    path.write_text(yaml.safe_dump(space))
    return profile, model, path


@pytest.mark.slow
def test_rules_search_finds_the_helpful_edit(tmp_path):
    profile, model, path = prerequisites_world(tmp_path)
    suite = ToySuite(n_sources=12)
    config = SearchConfig.of(objective="joint", env="toy", model=model, space=str(path), rounds=2, proposals=3,
                          epochs=3, runs_dir=str(tmp_path / "runs"), tracking_uri=None)
    result = asyncio.run(Search(config, suite=suite).run())
    selected = result.selected.harness

    loaded = load_space(str(path))
    library = loaded.libraries["prerequisites"]
    best = library.apply(loaded.initial(), library.clauses[1])
    truth = {name: ground_truth(h, suite, profile.name, epochs=10, seed0=10_000).joint.mean
             for name, h in (("r0", loaded.initial()), ("best", best), ("selected", selected))}
    assert truth["best"] - truth["r0"] > 0.1  # the edit truly helps
    assert HELPFUL in selected.text("system_prompt")
    assert truth["selected"] >= truth["best"] - MARGIN, truth
