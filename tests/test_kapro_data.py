"""KAPRO data: the KAware loader (validation, T = P1 tools), the rubric rule, the built-in suite."""

import json
from collections import Counter

import pytest

from harnessx.errors import InputError
from harnessx.kapro.builtin import CELLS, builtin_items
from harnessx.kapro.kaware import load_kaware
from harnessx.kapro.rubric import DIMENSIONS, classify
from tests.kaware_fixture import block, records, write_kaware

# one record per subspace, in KAware's published shape (tests/kaware_fixture.py)
EXTERNAL = records()["External_Function/single-hop.jsonl"][1]
INTERNAL = records()["Internal_Function/single-hop.jsonl"][0]
HYBRID = records()["Hybrid_Function/parallel.jsonl"][0]


def write(tmp_path, records, name="kaware.jsonl"):
    (tmp_path / name).write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return tmp_path


def test_loader_reads_the_published_shape_recursively(tmp_path):
    load = load_kaware(write_kaware(tmp_path))
    items = {i.id: i for i in load.items}
    assert load.problems == [] and len(items) == 16
    assert Counter((i.subspace, i.hop) for i in items.values()) == {cell: 2 for cell in CELLS}
    par = items["External_Function.parallel-20"]  # "a, b" target, dict tool_doc of JSON strings
    assert par.required == ["get_tide_times", "get_wind_report"] == par.tool_names
    assert par.responses == {"get_tide_times": ["High 06:10"], "get_wind_report": ['{"knots": 12}']}
    assert par.arguments["get_wind_report"] == {"station": "Brest"}
    assert par.tools[0]["function"]["parameters"]["properties"] == {"station": {"type": "string", "title": "Station"}}
    hop = items["External_Function.multi-hop-30"]  # "Server::tool, Server::tool", one tool without a response
    assert hop.hop == "multi-hop" and hop.required == ["get_local_time", "list_departures"]
    assert hop.responses == {"list_departures": ["15:30 to Isle 0"]} and hop.server == "Clock Service"
    hyb = items["Hybrid_Function.multi-hop-51"]
    assert hyb.required == ["latest_rate"] and set(hyb.tool_names) == {"latest_rate", "add_numbers"}
    internal = items["Internal_Function.multi-hop-80"]
    assert internal.required == [] and len(internal.tool_names) == 3 and internal.responses["add_numbers"] == ["13"]
    single = items["Internal_Function.single-hop-60"]  # tool_doc a JSON string, flat arguments and response
    assert single.arguments == {"add_numbers": {"a": 40, "b": 2}} and single.responses == {"add_numbers": ["42"]}
    task = hyb.to_task()
    assert task.metadata["benchmark"] == "kapro" and [a.name for a in task.reference.actions] == ["latest_rate"]


def test_every_item_gets_a_split_stratified_by_subspace(tmp_path):
    items = load_kaware(write_kaware(tmp_path)).items
    by = Counter((i.subspace, i.split) for i in items)
    # round(0.4 n) held out per subspace: 6 -> 2, 4 -> 2 (hybrid has two topologies)
    assert by == {("external", "heldout"): 2, ("external", "search"): 4, ("hybrid", "heldout"): 2,
                  ("hybrid", "search"): 2, ("internal", "heldout"): 2, ("internal", "search"): 4}
    assert [i.split for i in items] == [i.split for i in load_kaware(tmp_path).items]  # deterministic
    (tmp_path / "heldout").mkdir()
    write(tmp_path / "heldout", [EXTERNAL], "extra.jsonl")
    assert {i.split for i in load_kaware(tmp_path).items if i.id.startswith("heldout.")} == {"heldout"}


@pytest.mark.parametrize("change, field", [
    ({"boundary": "P4"}, "boundary"),
    ({"hop": "sideways"}, "hop"),
    ({"tool_doc": "{not json"}, "tool_doc"),
    ({"tool_doc": {"get_tide_times": "{broken"}}, "tool_doc['get_tide_times']"),
    ({"target_tool": ""}, "target_tool"),
    ({"tool_doc": block("other", "d", {})}, "tool_doc"),
])
def test_a_bad_record_is_reported_per_file_and_the_rest_load(tmp_path, change, field):
    write_kaware(tmp_path)
    write(tmp_path / "External_Function", [INTERNAL, {**EXTERNAL, **change}, EXTERNAL | {"index": 99}], "x.jsonl")
    load = load_kaware(tmp_path)
    assert len(load.items) == 18  # 16 + the two good records of x.jsonl
    [line] = load.problems
    assert line.startswith("External_Function/x.jsonl: 1 of 3 record(s) not read; first at line 2")
    assert f"field '{field}'" in line and "(expected " in line


def test_multi_tool_response_must_be_filed_per_tool(tmp_path):
    par = records()["External_Function/parallel.jsonl"][0]
    write(tmp_path, [par | {"tool_response": "one text for two tools"}])
    with pytest.raises(InputError, match="no record could be read.*field 'tool_response'"):
        load_kaware(tmp_path)


def test_loader_refuses_hybrid_without_annotations_and_unreadable_folders(tmp_path):
    bad = {k: v for k, v in HYBRID.items() if k != "sub_question_annotations"}
    with pytest.raises(InputError, match="sub_question_annotations"):
        load_kaware(write(tmp_path, [bad]))
    with pytest.raises(InputError, match="'task': missing"):
        load_kaware(write(tmp_path, [{k: v for k, v in EXTERNAL.items() if k != "task"}]))
    with pytest.raises(InputError, match="not valid JSON"):
        (tmp_path / "kaware.jsonl").write_text("{oops\n")
        load_kaware(tmp_path)
    with pytest.raises(InputError, match="is not a directory"):
        load_kaware(tmp_path / "kaware.jsonl")
    empty = tmp_path / "empty"
    (empty / "function_call_answer").mkdir(parents=True)  # KAware's runner output is not data
    (empty / "function_call_answer" / "out.jsonl").write_text('{"sample_idx": 0}\n')
    with pytest.raises(InputError, match="no \\*.jsonl"):
        load_kaware(empty)


def test_required_tool_must_be_offered(tmp_path):
    with pytest.raises(InputError, match="not offered"):
        load_kaware(write(tmp_path, [{**EXTERNAL, "tool_doc": block("other", "d", {})}]))


def test_rubric_rule():
    all_false = {d: "False" for d in DIMENSIONS}
    assert classify(all_false) == "internal"
    assert classify({**all_false, "data_privacy_scope": "True"}) == "external"
    assert classify({**all_false, "modality_scope": "Unknown"}) == "unknown"
    assert classify({**all_false, "modality_scope": "Unknown", "data_scale_scope": "True"}) == "external"
    with pytest.raises(InputError):
        classify({"interaction_scope": "False"})
    with pytest.raises(InputError):
        classify({**all_false, "modality_scope": "maybe"})


def test_builtin_suite_balanced_deterministic_and_split():
    items = builtin_items()
    cells = Counter((i.subspace, i.hop) for i in items)
    assert set(cells) == set(CELLS) and len(set(cells.values())) == 1  # balanced per cell
    assert ("hybrid", "single-hop") not in cells
    by_split = Counter((i.subspace, i.hop, i.split) for i in items)
    assert all(by_split[(s, h, "heldout")] == 3 and by_split[(s, h, "search")] == 5 for s, h in CELLS)
    assert [i.model_dump() for i in items] == [i.model_dump() for i in builtin_items()]
    assert len({i.id for i in items}) == len(items)
    for item in items:
        assert (item.required == []) == (item.subspace == "internal")
        if item.subspace == "hybrid":
            assert set(item.required) < set(item.tool_names)
        assert set(item.responses) == set(item.tool_names)
        assert item.facts and all(f.strip() for f in item.facts)
