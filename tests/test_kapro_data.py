"""KAPRO data: the KAware loader (validation, T = P1 tools), the rubric rule, the built-in suite."""

import json
from collections import Counter

import pytest

from harnessx.errors import InputError
from harnessx.kapro.builtin import CELLS, builtin_items
from harnessx.kapro.items import load_kaware_dir
from harnessx.kapro.rubric import DIMENSIONS, classify


def fn(name, desc="d"):
    return {"type": "function", "function": {"name": name, "description": desc,
                                             "parameters": {"type": "object", "properties": {}}}}


EXTERNAL = {"index": 1, "task": "What is the weather in Oslo now?", "boundary": "P1", "hop": "single-hop",
            "server": "Weather", "target_tool": "Weather::get_weather", "tool_doc": [fn("get_weather")],
            "tool_call_parameter": {"city": "Oslo"}, "tool_response": "{\"temp\": 3}", "answer": "3 C"}
INTERNAL = {"index": 2, "task": "How many cups is 500 ml?", "boundary": "P3", "hop": "single-hop",
            "target_tool": "Units::convert_volume", "tool_doc": json.dumps([fn("convert_volume")]),
            "tool_response": "{\"cups\": 2.11}", "answer": "about 2.11 cups"}
HYBRID = {"index": 3, "task": "Price of ACME now, and 25*4?", "boundary": "P2", "hop": "parallel",
          "target_tool": ["Markets::price", "Calc::multiply"], "tool_doc": [fn("price"), fn("multiply")],
          "tool_response": ["{\"p\": 10}", "100"], "answer": "10 and 100", "sub_questions": "Price?25*4?",
          "sub_question_annotations": [{"subquestion": "Price?", "tool": "Markets::price", "boundary": "P1"},
                                       {"subquestion": "25*4?", "tool": "Calc::multiply", "boundary": "P3"}],
          "tool_dependency": {"logic_type": "PARALLEL", "data_flow": "None", "reasoning": "independent"}}


def write(tmp_path, records, name="kaware.jsonl"):
    (tmp_path / name).write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return tmp_path


def test_loader_reads_kaware_and_required_set_is_p1_only(tmp_path):
    items = {i.id: i for i in load_kaware_dir(write(tmp_path, [EXTERNAL, INTERNAL, HYBRID]))}
    ext, internal, hyb = items["kaware-1"], items["kaware-2"], items["kaware-3"]
    assert ext.subspace == "external" and ext.required == ["get_weather"] and ext.responses["get_weather"] == ['{"temp": 3}']
    assert internal.subspace == "internal" and internal.required == [] and internal.tool_names == ["convert_volume"]
    assert hyb.subspace == "hybrid" and hyb.required == ["price"] and hyb.responses == {"price": ['{"p": 10}'],
                                                                                      "multiply": ["100"]}
    assert {i.split for i in items.values()} <= {"search", "heldout"}
    task = hyb.to_task()
    assert task.metadata["benchmark"] == "kapro" and [a.name for a in task.reference.actions] == ["price"]


@pytest.mark.parametrize("change, field", [
    ({"boundary": "P4"}, "boundary"),
    ({"hop": "sideways"}, "hop"),
    ({"tool_doc": [{"nope": 1}]}, "tool_doc[0]"),
    ({"target_tool": ""}, "target_tool"),
])
def test_loader_errors_name_file_line_and_field(tmp_path, change, field):
    write(tmp_path, [INTERNAL, {**EXTERNAL, **change}])
    with pytest.raises(InputError) as err:
        load_kaware_dir(tmp_path)
    assert "kaware.jsonl:2" in str(err.value) and f"'{field}'" in str(err.value)


def test_loader_refuses_hybrid_without_annotations_and_missing_fields(tmp_path):
    bad = {k: v for k, v in HYBRID.items() if k != "sub_question_annotations"}
    with pytest.raises(InputError, match="sub_question_annotations"):
        load_kaware_dir(write(tmp_path, [bad]))
    with pytest.raises(InputError, match="'task': missing"):
        load_kaware_dir(write(tmp_path, [{k: v for k, v in EXTERNAL.items() if k != "task"}]))
    with pytest.raises(InputError, match="not valid JSON"):
        (tmp_path / "kaware.jsonl").write_text("{oops\n")
        load_kaware_dir(tmp_path)
    with pytest.raises(InputError, match="is not a directory"):
        load_kaware_dir(tmp_path / "kaware.jsonl")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no \\*.jsonl"):
        load_kaware_dir(empty)


def test_required_tool_must_be_offered(tmp_path):
    with pytest.raises(InputError, match="not offered"):
        load_kaware_dir(write(tmp_path, [{**EXTERNAL, "tool_doc": [fn("other")]}]))


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
