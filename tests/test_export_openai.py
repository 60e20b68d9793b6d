"""The winner leaves HarnessX: `harnessx export RUN --format openai` writes JSON any agent stack reads
(a plain script builds a chat-completions request from it without importing harnessx), its tools are
OpenAI function schemas with the deferral tool among them, `Harness.render(tools)` is the same
rendering from Python, and bad input is one line with nothing written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionToolParam
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from pydantic import TypeAdapter
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.harness import Harness, load_preset, preset_names
from harnessx.harness.model import Switches
from harnessx.harness.render import render
from harnessx.tools import ToolSpec

TOOLS = [{"type": "function", "function": {"name": "get", "description": "Read the value of a key.", "parameters": {
    "type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}}},
         {"name": "put", "description": "Write a key.", "parameters": {  # a bare function: accepted too
             "type": "object", "properties": {"key": {"type": "string"}, "value": {"type": "string"}}}}]
TOOL_CHECK = TypeAdapter(ChatCompletionToolParam)
REQUEST_CHECK = TypeAdapter(CompletionCreateParamsNonStreaming)

# what a user's own stack does with the file: no harnessx import, only the documented fields
PLAIN_SCRIPT = r'''
import json, re, sys
import jsonschema

doc = json.load(open(sys.argv[1]))
assert doc["format"] == "harnessx.openai/1"
for tool in doc["tools"]:
    fn = tool["function"]
    assert tool["type"] == "function" and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", fn["name"])
    assert isinstance(fn["description"], str) and fn["parameters"]["type"] == "object"
    jsonschema.validators.validator_for(fn["parameters"]).check_schema(fn["parameters"])
system = doc["executor"]["system"] if doc["topology"] == "planner-executor" else doc["system"]
request = {"model": "gpt-4o-mini", "messages": [
    {"role": "system", "content": system},
    {"role": "user", "content": doc["first_user_message"].replace("{task}", "Copy the value of a into b.")}],
    "max_tokens": doc["max_tokens"], **doc["sampling"]}
if doc["tool_format"] == "native":
    request["tools"], request["tool_choice"] = doc["tools"], doc["tool_choice"]
claim = doc["claim"]
assert "harnessx" not in sys.modules
print(json.dumps({"request": request, "certified": claim["certified"] if claim else None,
                  "abandon_tool": doc["abandon"]["tool"]}))
'''


def cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    ran = cli("search", "--env", "toy", "--rounds", "1", "--proposals", "2", "--name", "t", "--runs-dir", str(runs),
              "--no-mlflow")
    assert ran.exit_code == 0, ran.output
    return runs / "t"


def test_the_openai_export_builds_a_chat_request_in_a_plain_script(run_dir, tmp_path):
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    out = tmp_path / "h.json"
    ran = cli("export", str(run_dir), "--format", "openai", "--tools", str(tmp_path / "tools.json"), "--out", str(out))
    assert ran.exit_code == 0, ran.output
    doc = json.loads(out.read_text())
    selected = Harness.load(run_dir / "selected.yaml")
    assert doc["harness"]["hash"] == selected.hash and doc["provenance"]["search"] == "t"
    assert doc["claim"] == selected.provenance["claim"] and "certified" in doc["claim"]
    assert doc["system"] == selected.render(TOOLS).system
    assert [t["function"]["name"] for t in doc["tools"]] == ["get", "put", doc["abandon"]["tool"]]
    script = tmp_path / "plain.py"
    script.write_text(PLAIN_SCRIPT)
    done = subprocess.run([sys.executable, "-I", str(script), str(out)], capture_output=True, text=True, check=False,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    request = REQUEST_CHECK.validate_python(result["request"])  # the OpenAI SDK's own request type
    messages, tools = list(request["messages"]), list(request["tools"])  # iterables: validated as read
    assert messages[0]["content"] == doc["system"] and len(tools) == 3
    for tool in result["request"]["tools"]:
        TOOL_CHECK.validate_python(tool)
    assert result["abandon_tool"] == "defer_task" and result["certified"] is doc["claim"]["certified"]


def test_env_tools_are_what_the_runs_environment_offers(run_dir, tmp_path):
    import asyncio

    from harnessx.envs.toy import ToySuite
    from harnessx.tools import AbandonSpec

    out = tmp_path / "h.json"
    ran = cli("export", str(run_dir), "--format", "openai", "--env-tools", "--out", str(out))
    assert ran.exit_code == 0, ran.output
    task = next(t for t in ToySuite().tasks("search") if t.feasible)
    offered = asyncio.run(ToySuite().make_env().reset(task, AbandonSpec(mode="tool"))).tools
    doc = json.loads(out.read_text())
    assert doc["tools"] == [t.openai() for t in offered] + [doc["tools"][-1]] and len(offered) >= 1
    assert doc["tools"][-1]["function"]["name"] == doc["abandon"]["tool"]
    assert all(t.name in doc["system"] or doc["tool_format"] == "native" for t in offered)


def test_render_is_what_the_runtime_offers_for_those_tools():
    specs = [ToolSpec(name="get", description="Read.", parameters=TOOLS[0]["function"]["parameters"])]
    for name in preset_names():
        harness = load_preset(name)
        assert harness.render(specs) == render(harness, specs, "tool")
        assert harness.render(TOOLS[:1]) == render(harness, [ToolSpec(**TOOLS[0]["function"])], "tool")  # an OpenAI tool


SWITCHES = st.fixed_dictionaries({
    "abandon_mode": st.sampled_from(["none", "auto", "file", "tool", "stop"]),
    "topology": st.sampled_from(["single", "planner-executor"]),
    "tool_format": st.sampled_from(["native", "constrained", "text"]),
    "self_check": st.sampled_from(["off", "end", "every-k"]),
    "end_report": st.booleans(),
    "temperature": st.none() | st.floats(0, 2),
    "reasoning_effort": st.none() | st.sampled_from(["low", "high"]),
})
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True).filter(lambda n: n != "defer_task")
TOOL_LISTS = st.lists(st.builds(lambda n, d: {"name": n, "description": d, "parameters": {
    "type": "object", "properties": {"x": {"type": "integer"}}}}, NAMES, st.text(max_size=40)),
    max_size=4, unique_by=lambda t: t["name"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(switches=SWITCHES, tools=TOOL_LISTS, preset=st.sampled_from(["A1", "D", "planner-executor"]))
def test_every_harness_exports_valid_openai_tools_and_the_fields_its_switches_imply(switches, tools, preset):
    harness = load_preset(preset).with_switches(**switches)
    doc = json.loads(json.dumps(harness.to_openai(tools)))  # JSON round trip: nothing but JSON
    for tool in doc["tools"]:
        TOOL_CHECK.validate_python(tool)
    names = [t["function"]["name"] for t in doc["tools"]]
    deferral_by_tool = switches["abandon_mode"] in ("auto", "tool")
    assert names == [t["name"] for t in tools] + (["defer_task"] if deferral_by_tool else [])
    assert (doc["abandon"]["tool"] == "defer_task") is deferral_by_tool
    assert (doc["planner"] is not None) is (doc["executor"] is not None) is (switches["topology"] == "planner-executor")
    if switches["tool_format"] != "native":  # the schemas are in the prompt itself
        assert all(name in doc["system"] for name in names)
    assert (doc["self_check"] is not None) is (switches["self_check"] != "off" and bool(harness.text("self_check_prompt")))
    assert doc["sampling"] == {k: switches[k] for k in ("temperature", "reasoning_effort") if switches[k] is not None}
    assert Switches.model_validate(doc["switches"]) == harness.switches


@pytest.mark.parametrize("content, args, message", [
    ("not json", [], "not valid JSON"),
    (json.dumps({"tool": []}), [], "no list of tools"),
    (json.dumps([{"function": {"description": "x"}}]), [], "tools[0].name: missing"),
    (json.dumps([{"type": "function", "function": {"name": "a", "parameters": {"type": "array"}}}]), [],
     "tools[0] (a).parameters"),
    (json.dumps([{"type": "web_search"}]), [], "tools[0].type: 'web_search'"),
    (json.dumps([TOOLS[1], TOOLS[1]]), [], "['put'] given twice"),
    (json.dumps([{"name": "defer_task"}]), [], "the harness's own deferral tool"),
    (json.dumps(TOOLS), ["--format", "yaml"], "--format: unknown format 'yaml'"),
    (json.dumps(TOOLS), ["--format", "harnessx"], "--tools: applies to --format openai only"),
    (json.dumps(TOOLS), ["--format", "openai", "--env-tools"], "--env-tools: given with --tools"),
])
def test_bad_tools_or_format_are_one_line_and_nothing_is_written(run_dir, tmp_path, content, args, message):
    (tmp_path / "tools.json").write_text(content)
    out = tmp_path / "h.json"
    ran = cli("export", str(run_dir), "--tools", str(tmp_path / "tools.json"), "--out", str(out),
              *(args or ["--format", "openai"]))
    assert ran.exit_code == 2, ran.output
    assert len(ran.output.strip().splitlines()) == 1 and message in ran.output, ran.output
    assert not out.exists()
