"""Invented KAware-format data in the published shape: the three subspace folders with one JSONL file
per topology, single-tool items with `tool_doc` a JSON string and flat arguments/response,
multi-tool items with `tool_doc` a dict of JSON strings, `input_schema`, comma-separated
`target_tool` ("Server::tool" or bare), per-tool `tool_call_parameter` / `tool_response` (a
multi-hop item without a response for its first tool, as published), `sub_question_annotations`
on hybrid and internal items, `tool_dependency`. Content is made up; only the shape follows KAware."""

from __future__ import annotations

import json
from pathlib import Path


def block(name: str, description: str, props: dict[str, str], scenario: bool = True) -> str:
    """A KAware function block as its JSON string: name, description, input_schema, annotations."""
    doc = {"name": name, "description": description,
           "input_schema": {"type": "object", "required": list(props),
                            "properties": {p: {"type": t, "title": p.title()} for p, t in props.items()}},
           "annotations": None}
    if scenario:
        doc["application_scenario"] = f"A harbour office uses **{name}** every morning."
    return json.dumps(doc)


TOOLS = {  # name -> (description, properties)
    "get_tide_times": ("Tide times for a station today.", {"station": "string"}),
    "get_wind_report": ("Current wind at a coastal station.", {"station": "string"}),
    "get_local_time": ("The current local time in a time zone.", {"zone": "string"}),
    "list_departures": ("Ferry departures from a port after a time.", {"port": "string", "after": "string"}),
    "convert_length": ("Convert between length units (m, ft, nmi).",
                       {"value": "number", "from_unit": "string", "to_unit": "string"}),
    "latest_rate": ("Latest exchange rate between two currencies.", {"base": "string", "quote": "string"}),
    "add_numbers": ("Add two numbers.", {"a": "number", "b": "number"}),
    "define_word": ("Dictionary definition of an English word.", {"word": "string"}),
}


def doc(*names: str) -> dict[str, str]:
    return {n: block(n, *TOOLS[n]) for n in names}


def single(i: int, boundary: str, tool: str, target: str, task: str, args: dict, response: str, answer: str,
           mcp: str | None = None) -> dict:
    rec = {"index": i, "task": task, "boundary": boundary, "turn": "single-turn", "hop": "single-hop",
           "server": "single"}
    if mcp:
        rec["mcp_server"] = mcp
    return rec | {"target_tool": target, "tool_doc": block(tool, *TOOLS[tool], scenario=False),
                  "tool_call_parameter": args, "tool_response": response, "answer": answer, "num_tools": 1}


def multi(i: int, boundary: str, hop: str, target: str, task: str, subs: list[tuple[str, str, str]] | None,
          args: dict, responses: dict, answer: str, flow: str = "None") -> dict:
    names = [t.split("::")[-1].strip() for t in target.split(",")]
    rec = {"index": i, "task": task, "boundary": boundary, "turn": "single-turn", "hop": hop,
           "server": "multi" if "::" in target else "single"}
    if "::" in target:
        rec["mcp_server"] = [f"https://example.org/servers/{n}" for n in names]
    rec |= {"target_tool": target, "num_tools": len(names),
            "sub_questions": " ".join(q for q, _, _ in subs) if subs else f"{task}?"}
    if subs:
        rec["sub_question_annotations"] = [{"subquestion": q, "tool": t, "boundary": b} for q, t, b in subs]
    return rec | {"tool_dependency": {"logic_type": hop.upper(), "data_flow": flow, "reasoning": "invented"},
                  "tool_doc": doc(*names), "tool_call_parameter": args, "tool_response": responses, "answer": answer}


PORTS = ["Brest", "Oban"]


def records() -> dict[str, list[dict]]:
    """Relative file path -> its records (two per file, sixteen in all)."""
    out: dict[str, list[dict]] = {}
    for i, port in enumerate(PORTS):
        out.setdefault("External_Function/single-hop.jsonl", []).append(single(
            10 + i, "P1", "get_tide_times", "get_tide_times" if i == 0 else "Tide Office::get_tide_times",
            f"When is high tide in {port} today?", {"station": port}, f"High tide {port}: 11:4{i}",
            f"High tide in {port} is at 11:4{i}."))
        out.setdefault("External_Function/parallel.jsonl", []).append(multi(
            20 + i, "P1", "parallel", "get_tide_times, get_wind_report",
            f"Tide times and the wind in {port} right now?", None,
            {"get_tide_times": {"station": port}, "get_wind_report": {"station": port}},
            {"get_tide_times": f"High 0{i + 6}:10", "get_wind_report": json.dumps({"knots": 12 + i})},
            f"High tide 0{i + 6}:10, wind {12 + i} knots."))
        out.setdefault("External_Function/multi-hop.jsonl", []).append(multi(
            30 + i, "P1", "multi-hop", "Clock Service::get_local_time, Ferry Desk::list_departures",
            f"Which ferries still leave {port} after the current local time?",
            [("What time is it now?", "get_local_time", "P1"), (f"Which ferries leave {port} after that?",
                                                                  "list_departures", "P1")],
            {"get_local_time": {"zone": "Europe/Paris"}, "list_departures": {"port": port, "after": "14:00"}},
            {"list_departures": f"15:30 to Isle {i}"}, f"The 15:30 ferry to Isle {i}.",
            "get_local_time (time) -> list_departures (after)"))
        out.setdefault("Hybrid_Function/parallel.jsonl", []).append(multi(
            40 + i, "P2", "parallel", "Unit Helper::convert_length, Fx Desk::latest_rate",
            f"How many feet is {100 + i} m, and what is 10 EUR in GBP today?",
            [(f"How many feet is {100 + i} m?", "convert_length", "P3"),
             ("What is 10 EUR in GBP today?", "latest_rate", "P1")],
            {"convert_length": {"value": 100 + i, "from_unit": "m", "to_unit": "ft"},
             "latest_rate": {"base": "EUR", "quote": "GBP"}},
            {"convert_length": json.dumps({"value": round((100 + i) * 3.28084, 2)}),
             "latest_rate": json.dumps({"rate": 0.85})}, f"{round((100 + i) * 3.28084, 2)} ft; 8.50 GBP."))
        out.setdefault("Hybrid_Function/multi-hop.jsonl", []).append(multi(
            50 + i, "P2", "multi-hop", "Fx Desk::latest_rate, Math Box::add_numbers",
            f"Convert 20 EUR to GBP at today's rate and add {5 + i} GBP.",
            [("What is 20 EUR in GBP today?", "latest_rate", "P1"), (f"What is that plus {5 + i}?",
                                                                      "add_numbers", "P3")],
            {"latest_rate": {"base": "EUR", "quote": "GBP"}, "add_numbers": {"a": 17, "b": 5 + i}},
            {"latest_rate": json.dumps({"rate": 0.85}), "add_numbers": str(22 + i)}, f"{22 + i} GBP",
            "latest_rate (rate) -> add_numbers (a)"))
        out.setdefault("Internal_Function/single-hop.jsonl", []).append(single(
            60 + i, "P3", "add_numbers", "add_numbers", f"Without a calculator: what is {40 + i} + 2?",
            {"a": 40 + i, "b": 2}, str(42 + i), f"{42 + i}", mcp="https://example.org/servers/math"))
        out.setdefault("Internal_Function/parallel.jsonl", []).append(multi(
            70 + i, "P3", "parallel", "Lexicon::define_word, Math Box::add_numbers",
            f"What does 'tide' mean, and what is {7 + i} + 8?",
            [("What does 'tide' mean?", "define_word", "P3"), (f"What is {7 + i} + 8?", "add_numbers", "P3")],
            {"define_word": {"word": "tide"}, "add_numbers": {"a": 7 + i, "b": 8}},
            {"define_word": "the rise and fall of the sea", "add_numbers": str(15 + i)},
            f"The rise and fall of the sea; {15 + i}."))
        out.setdefault("Internal_Function/multi-hop.jsonl", []).append(multi(
            80 + i, "P3", "multi-hop", "Unit Helper::convert_length, Math Box::add_numbers, Lexicon::define_word",
            f"Define 'fathom', convert {2 + i} fathoms of 1.8288 m to feet and add 1.",
            [("What is a fathom?", "define_word", "P3"), ("Convert to feet?", "convert_length", "P3"),
             ("Add 1?", "add_numbers", "P3")],
            {"define_word": {"word": "fathom"}, "convert_length": {"value": 2 + i, "from_unit": "m", "to_unit": "ft"},
             "add_numbers": {"a": 6 * (2 + i), "b": 1}},
            {"define_word": "six feet", "convert_length": json.dumps({"value": 6 * (2 + i)}),
             "add_numbers": str(6 * (2 + i) + 1)}, f"{6 * (2 + i) + 1} ft", "define_word -> convert_length -> add"))
    return out


def write_kaware(root: Path, extra: dict[str, str] | None = None) -> Path:
    """Write the fixture set under `root` (plus `extra`: relative path -> raw file text); returns root."""
    for rel, recs in records().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(json.dumps(r) for r in recs))  # KAware's files end without a newline
    for rel, text in (extra or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root
