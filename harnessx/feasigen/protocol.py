"""FeasiGen's protocol on HarnessX trajectories: the STOP parser, the decision, token accounting,
turn caps and the harnesses (single agent with the STOP prompt; planner → executor).

STOP detection (the paper leaves the parser unspecified; this is ours, digest §3.2):
a model message is a STOP exactly when its text, after leading whitespace, begins with the token
`STOP:` (case-sensitive). The runtime applies the same rule to every agent message (and to the
planner's, which may stop at planning) when the harness's abandon mode is `stop`; `parse_stop`
is that rule as a function. `decision()` reads the result off the trajectory: ŷ = infeasible
exactly when the agent itself certified a deferral (an agent-authored `abandon` event; under the
`feasigen-stop` preset that is a STOP message). Anything else, including a harness-written
deferral, is a continue.

Tokens: input + output of every model call up to and including the one that made the
termination decision (the STOP, the final answer, or the last turn before the cap). End-of-run
report and challenge calls come after termination and are not counted.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from harnessx.harness import load_preset
from harnessx.harness.model import Harness
from harnessx.trajectory import Trajectory

STOP_TOKEN = "STOP:"
# Per-benchmark max-turn budgets (digest §3.2); τ-bench's applies to retail.
TURN_CAPS = {"bfcl": 10, "stb": 10, "api-bank": 12, "retail": 15, "tau-bench": 15, "terminal": 15}
EXECUTOR_TURNS = 8
PLANNER_ROUNDS = 2
AFTER_TERMINATION = ("report",)


def parse_stop(text: str | None, token: str = STOP_TOKEN) -> str | None:
    """The explanation after the STOP token, or None when the message is not a STOP."""
    if not text:
        return None
    stripped = text.lstrip()
    return stripped[len(token):].strip() if stripped.startswith(token) else None


@dataclass(frozen=True)
class Decision:
    stopped: bool
    mechanism: str | None      # stop / tool / file (None: continued)
    role: str | None           # agent / executor / planner: who stopped
    tokens: int                # input + output up to and including the termination decision
    turns: int                 # model calls up to termination
    stop_reason: str


def decision(traj: Trajectory) -> Decision:
    abandon = next((e for e in traj.of_kind("abandon") if e.author == "agent"), None)
    tokens = turns = 0
    role = None
    for event in traj:
        if event.kind == "message" and event.author == "harness" and event.data.get("role") == "challenge":
            break
        if event.kind == "model_call" and event.data.get("role") not in AFTER_TERMINATION:
            tokens += int(event.data.get("prompt_tokens", 0)) + int(event.data.get("completion_tokens", 0))
            turns += 1
            role = event.data.get("role")
        if abandon is not None and event.seq >= abandon.seq:
            break
    end = traj.first("end")
    return Decision(abandon is not None, abandon.data.get("mechanism") if abandon else None,
                    (abandon.data.get("role") or role) if abandon else None, tokens, turns,
                    end.data.get("stop_reason", "") if end else "")


def tools_used(traj: Trajectory, env: str, certify_tools: frozenset[str] = frozenset({"defer_task"})) -> list[str]:
    """The ordered tool trace Γ: tool names for tool-set environments, binaries for terminal."""
    calls = [e.data for e in traj.of_kind("tool_call") if e.author == "agent" and e.data.get("name") not in certify_tools]
    if env != "terminal":
        return [c["name"] for c in calls]
    out: list[str] = []
    for call in calls:
        if call["name"] == "bash":
            out.extend(binaries(str((call.get("arguments") or {}).get("command", ""))))
    return out


SEPARATORS = {"|", "||", "&&", ";", "&", "(", ")", "{", "}", "!", "then", "do", "else", "elif", "time", "xargs",
              "exec", "env", "sudo", "nohup"}
KEYWORDS = {"if", "fi", "for", "while", "until", "done", "case", "esac", "function", "in", "[[", "]]", "[", "]",
            "set", "export", "cd", "echo", "printf", "read", "local", "return", "exit", "true", "false", "test",
            "shift", "source", ".", "eval", "trap", "wait", "unset", "declare", "break", "continue"}


def binaries(command: str) -> list[str]:
    """Command names a shell script runs (first word of each simple command; shell builtins and
    keywords dropped; heredoc bodies skipped). A lexical reading, not a shell parser."""
    names: list[str] = []
    heredoc_end: str | None = None
    for raw in command.splitlines():
        line = raw.strip()
        if heredoc_end is not None:
            if line == heredoc_end:
                heredoc_end = None
            continue
        if "<<" in line:
            marker = line.split("<<", 1)[1].strip().lstrip("-").strip().split()[0] if line.split("<<", 1)[1].strip() else ""
            heredoc_end = marker.strip("'\"") or None
        if not line or line.startswith("#"):
            continue
        lexer = shlex.shlex(line.split("<<", 1)[0], posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:
            continue
        expect = True
        for word in words:
            if word in SEPARATORS or set(word) <= set("|&;()"):
                expect = True
                continue
            if not expect:
                continue
            if "=" in word and not word.startswith("=") and word.split("=", 1)[0].isidentifier():
                continue  # VAR=value prefix
            expect = False
            name = word.rsplit("/", 1)[-1]
            if name and name not in KEYWORDS and not name.startswith(("$", "-", ">", "<")):
                names.append(name)
    return names


def stop_harness(max_turns: int | None = None) -> Harness:
    """The `feasigen-stop` preset (App. F prompt, STOP mode) with the benchmark's turn cap."""
    harness = load_preset("feasigen-stop")
    return harness.with_switches(max_steps=max_turns) if max_turns else harness


def planner_executor_harness() -> Harness:
    """FeasiGen's multi-agent system: a two-round planner that may stop at planning (STOP:), then
    an executor with at most 8 turns, both under the App. F feasibility-aware prompt."""
    base, roles = load_preset("feasigen-stop"), load_preset("planner-executor")
    harness = base.with_component("planner_prompt", roles.text("planner_prompt") + "\nIf a required capability is "
                                  "missing from the tools, reply with STOP:<which capability is missing> instead.")
    harness = harness.with_component("executor_prompt", roles.text("executor_prompt"))
    return harness.with_switches(topology="planner-executor", planner_rounds=PLANNER_ROUNDS,
                                 executor_max_turns=EXECUTOR_TURNS).renamed("feasigen-planner-executor")
