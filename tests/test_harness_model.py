"""Harness model: YAML round-trip, stable hash, validation errors, diff, presets, rendering."""

import pytest
import yaml

from harnessx.envs.base import ToolSpec
from harnessx.errors import InputError
from harnessx.harness import Harness, diff, load_preset, preset_names
from harnessx.harness.render import render

TOOLS = [ToolSpec(name="bash", description="run a command")]


def test_yaml_round_trip_keeps_hash(tmp_path):
    h = load_preset("C").with_switches(max_steps=7).renamed("mine", round=2)
    path = h.save(tmp_path / "h.yaml")
    back = Harness.load(path)
    assert back == h
    assert back.hash == h.hash
    assert Harness.load(h.save(tmp_path / "h.json")).hash == h.hash


def test_hash_ignores_name_and_provenance_but_not_text_or_switches():
    h = load_preset("A1")
    assert h.renamed("other", note="x").hash == h.hash
    assert h.with_component("system_prompt", h.text("system_prompt") + " Be careful.").hash != h.hash
    assert h.with_switches(max_steps=16).hash != h.hash


def test_hash_is_stable_across_processes():
    # Pinned value: a change here means every cached rollout key changes; update knowingly.
    assert Harness(components={"system_prompt": "x"}).hash == Harness(components={"system_prompt": "x"}).hash
    assert len(load_preset("A0").hash) == 16


def test_malformed_file_names_file_and_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nswitches:\n  max_steps: many\n")
    with pytest.raises(InputError) as err:
        Harness.load(bad)
    assert "bad.yaml" in str(err.value) and "switches.max_steps" in str(err.value)
    bad.write_text("components:\n  sytem_prompt: typo\n")
    with pytest.raises(InputError, match="unknown component"):
        Harness.load(bad)
    with pytest.raises(InputError, match="unknown preset"):
        load_preset("Z9")


def test_diff_names_switches_and_components():
    a = load_preset("A0")
    b = a.with_switches(abandon_mode="tool").with_component("abandon_protocol", "Defer: {abandon_instruction}")
    text = diff(a, b)
    assert "switch abandon_mode: 'none' -> 'tool'" in text
    assert "+Defer: {abandon_instruction}" in text
    assert diff(a, a) == ""


def test_presets_render_differently_and_as_documented():
    assert {"A0", "A1", "B", "C", "D", "feasigen-stop", "planner-executor"} <= set(preset_names())
    rendered = {n: render(load_preset(n), TOOLS, "file") for n in preset_names()}
    assert len({r.model_dump_json() for r in rendered.values()}) == len(rendered)
    assert rendered["A0"].abandon.mode == "none" and "infeasible.md" not in rendered["A0"].system
    assert rendered["A1"].abandon.mode == "file" and "`infeasible.md`" in rendered["A1"].system
    assert rendered["B"].report and not rendered["A1"].report
    assert rendered["C"].self_check and not rendered["A1"].self_check
    assert load_preset("D").switches.harness_control
    assert rendered["feasigen-stop"].abandon.mode == "stop" and "STOP:" in rendered["feasigen-stop"].system
    pe = rendered["planner-executor"]
    assert pe.planner_system.startswith("You are the planner") and pe.executor_system.startswith("You are the executor")
    assert load_preset("planner-executor").switches.executor_max_turns == 8


def test_tool_mode_adds_the_deferral_tool_and_text_mode_inlines_schemas():
    retail = render(load_preset("A1"), TOOLS, "tool")
    assert [t.name for t in retail.tools] == ["bash", "defer_task"]
    assert "`defer_task`" in retail.system
    text = render(load_preset("A1").with_switches(tool_format="text"), TOOLS, "tool")
    assert '{"tool": "<name>", "arguments": {...}}' in text.system and "defer_task" in text.system


def test_a_component_set_to_empty_has_one_identity_with_its_file(tmp_path):
    start = load_preset("A1")
    assert "few_shot" not in start.components
    edited = start.with_component("few_shot", "")  # what GEPA's candidate holds for a component A1 lacks
    assert edited.hash == start.hash
    path = edited.save(tmp_path / "selected.yaml")
    assert yaml.safe_load(path.read_text())["hash"] == Harness.load(path).hash == edited.hash


@pytest.mark.parametrize("switch, value", [("stop_token", ""), ("stop_token", " STOP: "), ("abandon_file", " "),
                                           ("abandon_tool", ""), ("abandon_tool", "defer task")])
def test_a_deferral_the_agent_could_not_make_is_refused(switch, value):
    with pytest.raises(ValueError, match=switch):
        load_preset("A1").with_switches(**{switch: value})


def test_a_component_over_the_size_limit_is_refused_wherever_it_comes_from(tmp_path):
    from harnessx.harness.model import MAX_COMPONENT_CHARS

    text = "x" * (MAX_COMPONENT_CHARS + 1)
    with pytest.raises(ValueError, match="expected at most"):
        load_preset("A1").with_component("few_shot", text)  # a proposer's edit
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump({"components": {"few_shot": text}}))
    with pytest.raises(InputError, match="big.yaml: field 'components'"):
        Harness.load(path)
    assert load_preset("A1").with_component("few_shot", "x" * MAX_COMPONENT_CHARS).text("few_shot")


def test_a_harness_file_whose_hash_line_is_not_its_content_s_is_refused(tmp_path):
    path = load_preset("A1").save(tmp_path / "h.yaml")
    assert "max_steps: 15" in path.read_text()
    path.write_text(path.read_text().replace("max_steps: 15", "max_steps: 3", 1))
    with pytest.raises(InputError, match="field 'hash'"):
        Harness.load(path)
    path.write_text("\n".join(line for line in path.read_text().splitlines() if not line.startswith("hash:")))
    assert Harness.load(path).switches.max_steps == 3  # without its hash line: a new harness
