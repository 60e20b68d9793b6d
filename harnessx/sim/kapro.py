"""The simulated agent on KAPRO tasks (`metadata["harnessx"]["sim"]["extra"]["kapro"]`): the
knowing probe's `tool_decisions` JSON (role `knowing`) and the acting run's tool calls and final
answer (role `agent`). Rates and cues come from `kapro.yaml`; a profile may override any rate as
`kapro_<name>` (profiles `kapro-overuse`, `kapro-underuse`). Deterministic per (profile, task,
epoch seed, tool, prompt text); see kapro.yaml for the model.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from functools import lru_cache
from pathlib import Path

from harnessx.sim.conversation import read
from harnessx.sim.profile import Profile, stable_seed

TABLE_FILE = Path(__file__).parent / "kapro.yaml"
RATE_PREFIX, RATE_TABLE = "kapro_", TABLE_FILE  # sim/hooks.py
_TOOL_JSON = re.compile(r"\[\s*\{.*\}\s*\]", re.DOTALL)


@lru_cache(maxsize=1)
def table() -> dict:
    import yaml

    data = yaml.safe_load(TABLE_FILE.read_text(encoding="utf-8"))
    for cue in data["cues"].values():
        cue["compiled"] = [re.compile(p, re.IGNORECASE) for p in cue["patterns"]]
    return data


def rate(profile: Profile, name: str, subspace: str | None = None) -> float:
    value = profile.rates.get(f"kapro_{name}", table()["rates"][name])
    return float(value[subspace]) if isinstance(value, dict) else float(value)


def _shift(text: str, scope: str, profile: Profile) -> dict[str, float]:
    """Cue shifts; the tools' own JSON (tool_info) is not harness text and is not read for cues."""
    text = _TOOL_JSON.sub("", text)
    out: dict[str, float] = {}
    for cue in table()["cues"].values():
        if scope in cue["scope"] and any(p.search(text) for p in cue["compiled"]):
            for key, value in cue["effects"].items():
                out[key] = out.get(key, 0.0) + value * profile.cue_scale
    return out


def _p(base: float, shift: float) -> float:
    base = min(max(base, 1e-4), 1 - 1e-4)
    return 1 / (1 + math.exp(-(math.log(base / (1 - base)) + shift)))


def _u(*parts: object) -> float:
    return random.Random(stable_seed(*parts)).random()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def decisions(profile: Profile, side: dict, seed: int, tools: list[str], stage: str, text: str) -> set[str]:
    """The tools this stage ('know' / 'act') marks or calls."""
    info = side["extra"]["kapro"]
    required, subspace = set(info["required"]), info["subspace"]
    shift = _shift(text, "knowing" if stage == "know" else "acting", profile)
    base = (profile.name, profile.digest, table()["version"], side["task_id"], seed)
    chosen = set()
    for tool in tools:
        shared = _u(*base, "shared", tool)
        own = _u(*base, stage, tool, _digest(text))
        u = shared if _u(*base, stage + "-mix", tool) < rate(profile, "agree") else own
        if tool in required:
            p = 1 - _p(rate(profile, f"{stage}_under", subspace), shift.get("under", 0.0))
        elif tool in info.get("distractors", ()):
            p = _p(rate(profile, f"distractor_{stage}_over", subspace), shift.get("over", 0.0))
        else:
            p = _p(rate(profile, f"{stage}_over", subspace), shift.get("over", 0.0))
        if u < p:
            chosen.add(tool)
    return chosen


def _tool_names_in(text: str) -> list[str]:
    match = re.search(r"\[\s*\{.*\}\s*\]", text, re.DOTALL)
    try:
        return [b["function"]["name"] for b in json.loads(match.group(0))] if match else []
    except (json.JSONDecodeError, KeyError, TypeError):
        return []


def knowing_reply(profile: Profile, side: dict, seed: int, messages: list[dict]) -> str:
    text = str(messages[-1].get("content") or "")
    if _u(profile.name, side["task_id"], seed, "parse", _digest(text)) < rate(profile, "parse_failure"):
        return "Most of these tools look useful for this kind of request."
    tools = _tool_names_in(text)
    marked = decisions(profile, side, seed, tools, "know", text)
    return json.dumps({"tool_decisions": {t: t in marked for t in tools}})


def acting_move(profile: Profile, side: dict, seed: int, messages: list[dict], tools: list[dict]) -> tuple[str, tuple | None]:
    """(text, call or None): the next planned call, or the final answer once all are made."""
    conv = read(messages)
    names = [t["function"]["name"] for t in tools or []]
    planned = [n for n in names if n in decisions(profile, side, seed, names, "act", conv.system)]
    ref = {a["name"]: a.get("arguments", {}) for a in side["reference"]["actions"]}
    done = [name for name, _ in conv.calls]
    todo = [n for n in planned if n not in done]
    if todo and len(done) < 10:
        return "", (todo[0], ref.get(todo[0], {}))
    info = side["extra"]["kapro"]
    have_all = set(info["required"]) <= set(done)
    internal_ok = _u(profile.name, side["task_id"], seed, "internal", _digest(conv.system)) < rate(
        profile, "internal_correct")
    if have_all and (internal_ok or info["subspace"] == "external"):
        return side["reference"].get("final_answer") or "Done.", None
    if not have_all:
        return "I can't look that up without the right data, but it should be fine.", None
    return "I worked it out, but I'm not certain of the exact figure.", None


def claims(side: dict) -> bool:
    """A KAPRO task (sim/hooks.py)."""
    return bool((side.get("extra") or {}).get("kapro"))


def respond(profile: Profile, side: dict, hx: dict, messages: list[dict], tools: list[dict]) -> dict:
    """KAPRO tasks: the knowing probe (role `knowing`) or the acting run."""
    seed = int(hx.get("seed", 0))
    if hx.get("role") == "knowing":
        text, call = knowing_reply(profile, side, seed, messages), None
    else:
        text, call = acting_move(profile, side, seed, messages, tools)
    calls = [{"name": call[0], "arguments": call[1], "id": f"call_{len(messages)}"}] if call else []
    chars = sum(len(str(m.get("content") or "")) for m in messages)
    usage = {"prompt_tokens": int(chars / profile.tokens.chars_per_token), "completion_tokens": len(text) // 4 + 8}
    return {"content": text, "tool_calls": calls, "usage": usage}
