"""The Harness: named text components plus typed switches, with a stable content hash.

Text components are what a proposer edits as prose; switches are the structural choices. The hash
covers components and switches only (not the name or provenance), so two harnesses that make the
agent behave the same way hash the same.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_serializer

from harnessx.models.reasoning import check_reasoning_effort


COMPONENTS = (
    "system_prompt",      # who the agent is and how it works
    "abandon_protocol",   # how to defer: {abandon_file}, {abandon_tool}, {stop_token} are filled in
    "planner_prompt",     # planner role (planner-executor topology)
    "executor_prompt",    # executor role (planner-executor topology)
    "self_check_prompt",  # sent at self-check points
    "report_prompt",      # end-of-run success/blocker report request
    "belief_prompt",      # read-only feasibility probe
    "few_shot",           # worked examples, tool-call examples included
    "knowing_prompt",     # KAPRO knowing probe: which offered tools the task needs ({task}, {tool_info})
    "task_prompt",        # wraps the task's first message: {task} is replaced by it (else it goes first)
)
# The longest component text a harness may hold (characters, about 12,500 tokens): beyond it every rollout
# would spend its token budget on the prompt, and a score would measure the limit, not the harness.
MAX_COMPONENT_CHARS = 50_000
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what every provider accepts as a function name
AbandonMode = Literal["none", "auto", "file", "tool", "stop"]
Topology = Literal["single", "planner-executor"]
SelfCheck = Literal["off", "end", "every-k"]
# native: tools as the API's `tools`; constrained: schemas in the prompt and the reply constrained to
# a call of an offered tool or a final message (guided decoding); text: schemas in the prompt, calls
# parsed from free text.
ToolFormat = Literal["native", "constrained", "text"]
OMITTED_WHEN_UNSET = ("reasoning_effort",)  # switches newer than the stored hashes


class Switches(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    abandon_mode: AbandonMode = "none"
    abandon_file: str = "infeasible.md"
    abandon_tool: str = "defer_task"
    stop_token: str = "STOP:"
    topology: Topology = "single"
    planner_rounds: int = Field(2, ge=1, le=8)
    executor_max_turns: int = Field(8, ge=1, le=100)
    self_check: SelfCheck = "off"
    self_check_k: int = Field(5, ge=1, le=100)
    end_report: bool = False
    harness_control: bool = False
    tool_format: ToolFormat = "native"
    parallel_tool_calls: bool = False  # text/constrained: read every call object in a reply, not only the first
    temperature: float | None = Field(None, ge=0.0, le=2.0)  # None: the run's default (CLI --temperature)
    top_p: float | None = Field(None, gt=0.0, le=1.0)  # None: the run's default (CLI --top-p)
    # low/medium/high or a thinking budget in tokens; None: the run's default (CLI --reasoning-effort)
    reasoning_effort: str | None = None
    max_steps: int = Field(15, ge=1, le=200)
    max_output_tokens: int = Field(1024, ge=16, le=65536)
    max_total_tokens: int = Field(200_000, ge=1000)
    time_limit_s: float = Field(600.0, gt=0)

    @field_validator("stop_token", "abandon_file")
    @classmethod
    def _deferral_possible(cls, value: str) -> str:
        if not value.strip() or value != value.strip():
            raise ValueError("the agent could not defer with it; expected non-empty text without leading or "
                             "trailing whitespace")
        return value

    @field_validator("abandon_file")
    @classmethod
    def _inside_the_workdir(cls, value: str) -> str:
        # the environment looks for it in the task's working directory: an absolute path or one that
        # climbs out would never be found there, and every deferral would score as a failure
        parts = value.split("/")
        if value.startswith(("/", "~")) or "\\" in value or ".." in parts or "" in parts:
            raise ValueError(f"{value!r} is not a file name relative to the task's working directory; expected "
                             "a relative name such as infeasible.md (no leading '/' or '~', no '\\', no '..')")
        return value

    @field_validator("reasoning_effort", mode="before")
    @classmethod
    def _reasoning_effort(cls, value: object) -> str | None:
        return check_reasoning_effort(value)  # type: ignore[arg-type]

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler):  # noqa: ANN001
        # A switch added later is left out of the dump while unset: harness hashes, saved harness
        # files and ledgers stay what they were for a harness that does not use it.
        data = handler(self)
        for name in OMITTED_WHEN_UNSET:
            if data.get(name) is None:
                data.pop(name, None)
        return data

    @field_validator("abandon_tool")
    @classmethod
    def _tool_name(cls, value: str) -> str:
        if not TOOL_NAME.match(value):
            raise ValueError("the agent could not call it to defer; expected a tool name of 1-64 letters, digits, "
                             "'_' or '-'")
        return value


class Harness(BaseModel):
    """A harness: named text components (`COMPONENTS`) and typed `Switches`, frozen.

    What a search edits and selects, and what `harnessx export` writes. Its `hash` covers the
    components and switches only, so it names the agent's behaviour: rollouts are cached, compared
    and paired by it. Edit it through `with_component` and `with_switches`, which return a new,
    validated harness; load and save it as YAML with `load` and `save`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str = "unnamed"
    components: dict[str, str] = Field(default_factory=dict)
    switches: Switches = Field(default_factory=Switches)
    provenance: dict[str, Any] = Field(default_factory=dict)

    @field_validator("components")
    @classmethod
    def _known_components(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(COMPONENTS))
        if unknown:
            raise ValueError(f"unknown component(s) {unknown}; known: {list(COMPONENTS)}")
        too_long = sorted((k for k, v in value.items() if len(v) > MAX_COMPONENT_CHARS), key=lambda k: -len(value[k]))
        if too_long:
            raise ValueError(f"component {too_long[0]!r} has {len(value[too_long[0]]):,} characters; expected at "
                             f"most {MAX_COMPONENT_CHARS:,} (every rollout would spend its token budget on it)")
        return {k: v for k, v in value.items() if v}

    def text(self, component: str) -> str:
        """The component's text, empty when the harness does not set it."""
        return self.components.get(component, "")

    @property
    def hash(self) -> str:
        """16 hex digits of the SHA-256 of the components and switches (not the name or provenance)."""
        body = {"components": self.components, "switches": self.switches.model_dump(mode="json")}
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def with_component(self, component: str, text: str) -> "Harness":
        """The harness with `component` set to `text`, checked as loading checks it (a ValueError for an
        unknown component or a text over MAX_COMPONENT_CHARS); an empty text removes the component, as
        loading does, so a harness and the file it is saved to have one hash."""
        components = type(self)._known_components({**self.components, component: text})
        return self.model_copy(update={"components": components})

    def with_switches(self, **changes: Any) -> "Harness":
        """The harness with these switches changed, validated (a pydantic ValidationError otherwise)."""
        merged = {**self.switches.model_dump(), **changes}
        return self.model_copy(update={"switches": Switches.model_validate(merged)})

    def renamed(self, name: str, **provenance: Any) -> "Harness":
        """The same harness (same hash) under another name, with `provenance` added."""
        return self.model_copy(update={"name": name, "provenance": {**self.provenance, **provenance}})

    # --- for other agent stacks ----------------------------------------------------------------
    def render(self, tools: Any = (), native_abandon: Literal["file", "tool"] = "tool") -> Any:
        """The harness rendered for your agent's tools, as HarnessX's runtime would offer it.

        Args:
            tools: your tools: OpenAI tool objects (`{"type": "function", "function": {...}}`), bare
                functions (`{"name", "description", "parameters"}`) or `ToolSpec`s.
            native_abandon: how the agent defers when the harness leaves it to the environment
                (`abandon_mode: auto`): by a tool call (`tool`, what agent stacks use) or a file.

        Returns:
            A `Rendered`: `system` (the system prompt), `tools` (yours, then the harness's deferral
            tool when it has one), `planner_system` / `executor_system` (planner-executor topology),
            `self_check` and `report` (messages the loop sends), `abandon` and `tool_format`.
            `Rendered.tools[i].openai()` is the OpenAI function schema.
        """
        from harnessx.harness.openai_format import render_for

        return render_for(self, tools, native_abandon)

    def to_openai(self, tools: Any = (), native_abandon: Literal["file", "tool"] = "tool") -> dict[str, Any]:
        """The document `harnessx export --format openai` writes (see docs/export.md): the rendered system
        prompt, the tools as OpenAI function schemas, the planner/executor prompts and the switches an
        agent loop needs, with the provenance and the certified claim."""
        from harnessx.harness.openai_format import openai_export

        return openai_export(self, tools, native_abandon)

    # --- files -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"hash": self.hash, **self.model_dump(mode="json")}

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True, width=100)

    def save(self, path: str | Path) -> Path:
        """Write it with its hash, atomically: JSON for a `.json` path, else YAML. Returns the path."""
        from harnessx.io_write import write_atomic

        path = Path(path)
        return write_atomic(path, json.dumps(self.to_dict(), indent=2) if path.suffix == ".json" else self.to_yaml())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Harness":
        return cls.model_validate({k: v for k, v in data.items() if k != "hash"})

    @classmethod
    def load(cls, path: str | Path) -> "Harness":
        """Read a harness file; a malformed file, an unknown field or a stored hash that does not match
        the contents is an InputError naming the file and the field."""
        from harnessx.stored import check_harness_hash
        from harnessx.validation import read_mapping, validate

        data = read_mapping(path)
        stored = {"hash": data.pop("hash")} if "hash" in data else {}
        harness = validate(cls, data, str(path))
        check_harness_hash(stored, harness.hash, path)  # a file edited after it was written is not believed
        return harness


def diff(old: Harness, new: Harness) -> str:
    """A readable diff: switch changes, then a unified diff per changed component."""
    lines: list[str] = []
    old_sw, new_sw = old.switches.model_dump(), new.switches.model_dump()
    for key in {**old_sw, **new_sw}:
        if old_sw.get(key) != new_sw.get(key):
            lines.append(f"switch {key}: {old_sw.get(key)!r} -> {new_sw.get(key)!r}")
    for comp in COMPONENTS:
        a, b = old.text(comp), new.text(comp)
        if a != b:
            lines.extend(difflib.unified_diff(a.splitlines(), b.splitlines(),
                                              f"{comp} ({old.hash})", f"{comp} ({new.hash})", lineterm=""))
    return "\n".join(lines)

