"""The MCP suite's task file and its generated twins.

Bad input, one line and exit 2: for every field a record requires and every record position, in
YAML and JSONL, the message names the file, the record's line and the field; so for unknown fields
(random names, top-level and nested); a tool the server lacks; a server that does not start.
Twins: the infeasible twin masks the tools every accepted solution uses, and FeasiGen's mechanical
check runs on the real server (a mask that leaves the goal reachable is rejected, named).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.mcp.spec import read_tasks
from harnessx.errors import InputError
from tests.conftest import require

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mcp-inventory"
FAULTY = Path(__file__).resolve().parent / "mcp_servers" / "faulty.py"
REQUIRED = ("id", "request", "expected_calls")


def record(i: int) -> dict:
    return {"id": f"r{i}", "request": f"Add {i + 1} units of CHR-1.",
            "expected_calls": [{"tool": "restock", "arguments": {"sku": "CHR-1", "quantity": i + 1}}]}


def write(path: Path, records: list[dict]) -> tuple[Path, list[int]]:
    """The task file and each record's first line."""
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return path, list(range(1, len(records) + 1))
    chunks = ["# tasks\n"] + [yaml.safe_dump([r], sort_keys=False) + "\n" for r in records]
    path.write_text("".join(chunks), encoding="utf-8")
    lines, n = [], 2
    for chunk in chunks[1:]:
        lines.append(n)
        n += chunk.count("\n")
    return path, lines


@pytest.mark.parametrize("suffix", [".yaml", ".jsonl"])
@pytest.mark.parametrize("field", REQUIRED)
@pytest.mark.parametrize("position", [0, 2, 4])
def test_a_missing_field_names_file_line_and_field(tmp_path, suffix, field, position):
    records = [record(i) for i in range(5)]
    del records[position][field]
    path, lines = write(tmp_path / f"tasks{suffix}", records)
    with pytest.raises(InputError) as err:
        read_tasks(path)
    assert err.value.source == f"{path}:{lines[position]}" and f"missing field {field!r}" in err.value.problem


def unknown_names(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(2, 12))).strip("_") or "x"
            for _ in range(n)]


@pytest.mark.parametrize("suffix", [".yaml", ".jsonl"])
@pytest.mark.parametrize("name", unknown_names(6) + ["Request", "expected_call", "splits"])
def test_an_unknown_field_is_named_with_the_known_ones(tmp_path, suffix, name):
    records = [record(i) for i in range(3)]
    records[1][name] = "x"
    records[1].pop("split", None)
    path, lines = write(tmp_path / f"tasks{suffix}", records)
    with pytest.raises(InputError) as err:
        read_tasks(path)
    assert err.value.source == f"{path}:{lines[1]}" and err.value.problem == f"unknown field {name!r}"
    assert "expected_calls" in err.value.expected


@pytest.mark.parametrize("where,value,field", [
    ("expected_calls", [{"tool": "restock", "argument": {}}], "expected_calls[0].argument"),
    ("trap", {"setup": [{"tool": "set_status"}], "blocker": "b", "key_facts": ["k"], "evidence": {"tol": "x"}},
     "trap.evidence.tol"),
    ("success", {"call": {"tool": "check_item", "expect": 1, "extra": 2}}, "success.call.extra"),
])
def test_a_nested_unknown_field_is_named_by_its_path(tmp_path, where, value, field):
    records = [record(0) | {where: value}]
    path, lines = write(tmp_path / "tasks.yaml", records)
    with pytest.raises(InputError) as err:
        read_tasks(path)
    assert err.value.problem == f"unknown field {field!r}" and err.value.source == f"{path}:{lines[0]}"


def test_a_bad_value_and_a_duplicate_id_are_named(tmp_path):
    path, lines = write(tmp_path / "a.yaml", [record(0) | {"split": "train"}])
    with pytest.raises(InputError, match=r"field 'split'"):
        read_tasks(path)
    path, lines = write(tmp_path / "b.jsonl", [record(0), record(1) | {"id": "r0"}])
    with pytest.raises(InputError) as err:
        read_tasks(path)
    assert err.value.source == f"{path}:2" and "also the id at line 1" in err.value.problem


# --- through the CLI, against real servers --------------------------------------------------
def suite_dir(tmp_path: Path, records: list[dict], server: str = f"{sys.executable} {EXAMPLE / 'server.py'}") -> Path:
    write(tmp_path / "tasks.yaml", records)
    (tmp_path / "mcp.yaml").write_text(yaml.safe_dump({"server": {"command": server}, "tasks": "tasks.yaml"}))
    return tmp_path


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def one_line_exit_2(result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def test_cli_bad_task_file_is_one_line(tmp_path):
    bad = [record(0), record(1) | {"requets": "typo"}]
    line = one_line_exit_2(cli("tasks", "list", "--env", "mcp", "--tasks-dir", str(suite_dir(tmp_path, bad))))
    assert "tasks.yaml:" in line and "unknown field 'requets'" in line


def test_cli_a_tool_the_server_lacks_is_one_line(tmp_path, monkeypatch):
    require("mcp")
    monkeypatch.setenv("HARNESSX_MCP_CACHE", str(tmp_path / "cache.json"))
    bad = [record(0), record(1) | {"expected_calls": [{"tool": "get_item", "arguments": {"sku": "CHR-1"}},
                                                      {"tool": "restok", "arguments": {"sku": "CHR-1"}}]}]
    line = one_line_exit_2(cli("tasks", "list", "--env", "mcp", "--tasks-dir", str(suite_dir(tmp_path, bad))))
    assert "tasks.yaml:" in line and "expected_calls[1].tool" in line and "no tool 'restok'" in line
    assert "restock" in line  # the tools it has


def test_cli_a_server_that_does_not_start_is_one_line(tmp_path):
    require("mcp")
    folder = suite_dir(tmp_path, [record(0)], server=f"{sys.executable} {FAULTY} --no-start")
    line = one_line_exit_2(cli("tasks", "list", "--env", "mcp", "--tasks-dir", str(folder)))
    assert "mcp.yaml: server" in line and "refusing to start" in line


def test_twins_mask_what_every_solution_uses_and_the_mechanical_check_runs_on_the_server(tmp_path, monkeypatch):
    require("mcp")
    from harnessx.envs.mcp import MCPSuite

    monkeypatch.setenv("HARNESSX_MCP_CACHE", str(tmp_path / "cache.json"))
    restock = [{"tool": "get_item", "arguments": {"sku": "CHR-1"}},
               {"tool": "restock", "arguments": {"sku": "CHR-1", "quantity": 2}}]
    check = {"call": {"tool": "check_item", "arguments": {"sku": "CHR-1"}, "expect": {"stock": 7}}}
    records = [
        {"id": "two-ways", "request": "Add 2 units of CHR-1.", "expected_calls": restock, "success": check,
         "solutions": [[{"tool": "list_items"}, restock[1]]],
         "trap": {"setup": [{"tool": "set_status", "arguments": {"sku": "CHR-1", "status": "recalled"}}],
                  "blocker": "CHR-1 is recalled", "key_facts": ["recalled"],
                  "evidence": {"tool": "get_item", "arguments": {"sku": "CHR-1"}}},
         "ambiguous": {"request": "Add some units of CHR-1.", "blocker": "how many is not said", "key_facts": ["how many"]}},
        # masking the lookup alone leaves the goal reachable: the mechanical check must reject it
        {"id": "weak-mask", "request": "Add 2 units of CHR-1.", "expected_calls": restock, "success": check,
         "critical_tools": ["get_item"]},
    ]
    suite = MCPSuite(tasks_dir=str(suite_dir(tmp_path, records)), concurrency=2)
    by_id = {t.id: t for t in suite.tasks()}
    masked = by_id["two-ways-masked"]
    assert masked.metadata["masked_tools"] == ["restock"] and masked.blocker.key_facts == ["restock"]
    assert masked.metadata["mcp_twin"]["check"]["passed"] and masked.evidence.where == "spec"
    assert "weak-mask-masked" not in by_id and "still reached the goal" in suite.rejected["weak-mask-masked"]
    trap, ambiguous = by_id["two-ways-trap"], by_id["two-ways-ambiguous"]
    assert trap.metadata["mcp_setup"][-1]["tool"] == "set_status" and trap.evidence.tool == "get_item"
    assert ambiguous.instruction == "Add some units of CHR-1." and "restock" in ambiguous.forbidden
    assert {t.source_id for t in suite.tasks()} == {"two-ways", "weak-mask"}
    assert {t.split for t in suite.tasks()} == {"search", "heldout"}  # no split given: they alternate


def test_the_suite_is_the_same_whether_its_checks_ran_or_were_read_back(tmp_path, monkeypatch):
    """Rollout keys hash the tasks: a suite built from the check cache must equal the one that ran them."""
    require("mcp")
    from harnessx.envs.mcp import MCPSuite
    from harnessx.tasks import suite_hash

    monkeypatch.setenv("HARNESSX_MCP_CACHE", str(tmp_path / "cache.json"))
    folder = suite_dir(tmp_path, [record(0) | {"success": {"call": {"tool": "check_item", "arguments": {"sku": "CHR-1"},
                                                                    "expect": {"stock": 6}}}}])
    ran = MCPSuite(tasks_dir=str(folder))
    assert (tmp_path / "cache.json").exists()
    read_back = MCPSuite(tasks_dir=str(folder))
    assert [t.model_dump_json() for t in ran.tasks()] == [t.model_dump_json() for t in read_back.tasks()]
    assert suite_hash(ran.tasks()) == suite_hash(read_back.tasks()) and len(ran.tasks()) == 2


@pytest.mark.parametrize("field", REQUIRED)
def test_a_misspelt_required_field_is_named_as_the_unknown_one(tmp_path, field):
    records = [record(0), record(1)]
    records[1][field[:-1] + "x"] = records[1].pop(field)  # the required field is missing, its misspelling present
    path, lines = write(tmp_path / "tasks.yaml", records)
    with pytest.raises(InputError) as err:
        read_tasks(path)
    assert err.value.problem == f"unknown field {field[:-1] + 'x'!r}" and err.value.source == f"{path}:{lines[1]}"


@pytest.mark.parametrize("arguments,field,says", [
    ({"sku": "CHR-1"}, "expected_calls[0].arguments", "'quantity' is a required property"),
    ({"sku": "CHR-1", "quantity": "four"}, "expected_calls[0].arguments.quantity", "is not of type 'integer'"),
])
def test_cli_arguments_that_do_not_fit_the_tool_schema_are_one_line(tmp_path, monkeypatch, arguments, field, says):
    require("mcp")
    monkeypatch.setenv("HARNESSX_MCP_CACHE", str(tmp_path / "cache.json"))
    bad = [record(0) | {"expected_calls": [{"tool": "restock", "arguments": arguments}]}]
    line = one_line_exit_2(cli("tasks", "list", "--env", "mcp", "--tasks-dir", str(suite_dir(tmp_path, bad))))
    assert f"field '{field}'" in line and says in line, line


TOOLS = ("get_item", "list_items", "restock", "set_price", "place_order", "cancel_order", "check_item")


@pytest.mark.parametrize("seed", range(40))
def test_critical_tools_are_what_every_accepted_solution_uses(seed):
    """A family of random records: the masked twin hides exactly the intersection of the solutions'
    tool sets, or the record is refused (one line naming 'solutions') when they share none."""
    from harnessx.envs.mcp.spec import TaskRecord
    from harnessx.envs.mcp.twins import critical

    rng = random.Random(seed)
    plans = [[{"tool": rng.choice(TOOLS)} for _ in range(rng.randint(1, 4))] for _ in range(rng.randint(1, 4))]
    rec = TaskRecord.model_validate({"id": "r", "request": "q", "expected_calls": plans[0], "solutions": plans[1:]})
    shared = set.intersection(*({c["tool"] for c in plan} for plan in plans))
    if shared:
        assert critical(rec, "f:1") == sorted(shared)
    else:
        with pytest.raises(InputError, match="share no tool") as err:
            critical(rec, "f:1")
        assert err.value.source == "f:1" and "'solutions'" in err.value.problem
    given = TaskRecord.model_validate({"id": "r", "request": "q", "expected_calls": plans[0], "critical_tools": ["restock"]})
    assert critical(given, "f:1") == ["restock"]  # the record's own choice wins


@pytest.mark.slow
def test_every_twin_of_the_example_carries_blocker_key_facts_and_evidence(tmp_path, monkeypatch):
    """Every task of the example suite: a blocked twin names its family, blocker, key facts and evidence and
    forbids acting; an infeasible twin passed the mechanical check on the server and hides its critical tools."""
    require("mcp")
    from harnessx.envs.mcp import MCPSuite

    monkeypatch.setenv("HARNESSX_MCP_CACHE", str(tmp_path / "cache.json"))
    suite = MCPSuite(tasks_dir=str(EXAMPLE))
    assert not suite.rejected
    tasks = suite.tasks()
    sources = {t.id: t for t in tasks if t.feasible}
    for task in tasks:
        if task.feasible:
            continue
        source = sources[task.source_id]
        assert task.blocker.key_facts and task.blocker.description and task.evidence is not None, task.id
        assert task.forbidden and task.reference == source.reference and task.split == source.split, task.id
        if task.family == "infeasible":
            check = task.metadata["mcp_twin"]["check"]
            assert check["passed"] and check["reward"] < 1.0 and set(check["refused"]) <= set(task.metadata["masked_tools"])
            assert task.blocker.key_facts == task.metadata["masked_tools"] and task.evidence.where == "spec"
        if task.family == "trap":
            assert task.evidence.where == "observation" and len(task.metadata["mcp_setup"]) > len(source.metadata["mcp_setup"])
    assert {t.family for t in tasks if not t.feasible} == {"infeasible", "trap", "ambiguous"}
    assert all(f"{s}-masked" in {t.id for t in tasks} for s in sources)


def test_cli_a_checking_call_that_changes_state_is_one_line(tmp_path, monkeypatch):
    require("mcp")
    monkeypatch.setenv("HARNESSX_MCP_CACHE", str(tmp_path / "cache.json"))
    bad = [record(0) | {"success": {"call": {"tool": "restock", "arguments": {"sku": "CHR-1", "quantity": 1},
                                             "expect": "x"}}}]
    line = one_line_exit_2(cli("tasks", "list", "--env", "mcp", "--tasks-dir", str(suite_dir(tmp_path, bad))))
    assert "field 'success.call.tool'" in line and "not read-only" in line
