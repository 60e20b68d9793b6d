"""Retail tools on bad input (τ²-style error observations, never a crash) and bad files (errors that
name the file and the field)."""

from __future__ import annotations

import json
import sys

import pytest

from harnessx.envs.base import AbandonSpec
from harnessx.envs.retail.calculator import calculate
from harnessx.envs.retail.dispatch import run_tool
from harnessx.envs.retail.store import Store
from harnessx.envs.retail.suite import RetailSuite, load_tasks_file
from harnessx.envs.retail.tau2 import load_tau2
from harnessx.envs.retail.tools import RetailTools
from harnessx.errors import InputError
from harnessx.tasks import ToolCall


@pytest.fixture(scope="module")
def suite() -> RetailSuite:
    return RetailSuite()


@pytest.fixture()
def tools(suite) -> RetailTools:
    return RetailTools(Store(suite.db))


@pytest.mark.parametrize("name, arguments, message", [
    ("cancel_pending_order", {"order_id": "#W0000000"},
     "Error: RetailTools.cancel_pending_order() missing 1 required positional argument: 'reason'"),
    ("get_order_details", {"order_id": "#W1", "user_id": "x"},
     "Error: RetailTools.get_order_details() got an unexpected keyword argument 'user_id'"),
    ("modify_user_address", {"user_id": "x"},
     "Error: RetailTools.modify_user_address() missing 6 required positional arguments: 'address1', 'address2', "
     "'city', 'state', 'country', and 'zip'"),
    ("find_user_id_by_name_zip", {"first_name": "A", "last_name": "B"},
     "Error: RetailTools.find_user_id_by_name_zip() missing 1 required positional argument: 'zip'"),
    ("return_delivered_order_items", {"order_id": "#W1", "item_ids": "123", "payment_method_id": "p"},
     "Error: argument 'item_ids' must be a list of strings"),
    ("get_user_details", {"user_id": 42}, "Error: argument 'user_id' must be a string"),
    ("no_such_tool", {}, "Error: Tool 'no_such_tool' not found."),
    ("get_user_details", ["not", "a", "mapping"], "Error: tool arguments must be a JSON object"),
    ("calculate", {"expression": "2 ** 99999999"}, "Error: exponent too large"),
    ("calculate", {"expression": "import os"}, "Error: Invalid characters in expression"),
])
def test_malformed_arguments_become_error_observations(tools, name, arguments, message):
    assert run_tool(tools, name, arguments) == (False, message)


@pytest.mark.parametrize("expression, result", [
    ("1.005 * 1", "1.0"), ("0.125 + 0", "0.12"), ("-0.004", "-0.0"), ("10000000000 * 10000000", "1e+17"),
    ("(2 + 3) * 4 / 3", "6.67"), (" 7 // 2", "3.0"),
])
def test_calculate_rounds_like_tau2(expression, result):
    assert calculate(expression) == result


@pytest.mark.parametrize("expression", ["", "1 / 0", "1.0 / 0", "()", "(1 + 2", "007", "10.0 ** 400"])
def test_calculate_errors_are_observations(tools, expression):
    ok, output = run_tool(tools, "calculate", {"expression": expression})
    assert not ok and output.startswith("Error: ")


async def test_environment_never_crashes_on_garbage_calls(suite):
    env = suite.make_env()
    task = suite.tasks()[0]
    await env.reset(task, AbandonSpec(mode="tool"))
    for call in [ToolCall(name="cancel_pending_order", arguments={"order_id": None, "reason": []}),
                 ToolCall(name="modify_pending_order_items", arguments={"order_id": "#W1", "item_ids": [1],
                                                                        "new_item_ids": [2], "payment_method_id": 3}),
                 ToolCall(name="exchange_delivered_order_items", arguments={}),
                 ToolCall(name="", arguments={})]:
        outcome = await env.execute(call)
        assert outcome.error and outcome.observation.startswith("Error: ") and not outcome.state_changes
    assert await env.verify() == 0.0  # feasible task, nothing done


def _tau2_dir(tmp_path, db: dict | str, tasks: list | str | None = None):
    (tmp_path / "db.json").write_text(db if isinstance(db, str) else json.dumps(db))
    (tmp_path / "tasks.json").write_text(json.dumps(tasks if tasks is not None else []) if not isinstance(tasks, str)
                                         else tasks)
    (tmp_path / "split_tasks.json").write_text(json.dumps({"train": []}))
    (tmp_path / "policy.md").write_text("# policy\n")
    return tmp_path


def test_malformed_tau2_db_names_file_and_field(tmp_path):
    bad = {"products": {}, "users": {}, "orders": {"#W1": {"order_id": "#W1"}}}
    with pytest.raises(InputError) as err:
        load_tau2(_tau2_dir(tmp_path, bad))
    assert "db.json" in str(err.value) and "orders.#W1" in str(err.value)


def test_malformed_tau2_task_names_file_task_and_field(tmp_path):
    tasks = [{"id": "0", "user_scenario": {"instructions": "x"},
              "evaluation_criteria": {"actions": [{"name": "drop_table"}]}}]
    with pytest.raises(InputError) as err:
        load_tau2(_tau2_dir(tmp_path, {"products": {}, "users": {}, "orders": {}}, tasks))
    text = str(err.value)
    assert "tasks.json [task 0]" in text and "evaluation_criteria.actions.0.name" in text


def test_missing_or_unparseable_tau2_files(tmp_path):
    with pytest.raises(InputError, match="--tau2-dir"):
        load_tau2(tmp_path / "nowhere")
    with pytest.raises(InputError, match="db.json: cannot parse"):
        load_tau2(_tau2_dir(tmp_path, "{oops"))


def test_malformed_task_file_names_line_and_field(tmp_path, suite):
    good = suite.tasks()[1].model_dump(mode="json")
    bad = dict(good, family="unknown-family")
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputError) as err:
        load_tasks_file(path)
    assert f"{path}:2" in str(err.value) and "field 'family'" in str(err.value)


def test_malformed_generator_config_names_file_and_field(tmp_path):
    from harnessx.envs.retail.generator import CONFIG_DIR

    for name in ("catalog.yaml", "people.yaml", "suite.yaml"):
        (tmp_path / name).write_text((CONFIG_DIR / name).read_text())
    (tmp_path / "generator.yaml").write_text("seed: 1\nn_users: -3\n")
    with pytest.raises(InputError) as err:
        RetailSuite(config_dir=tmp_path)
    assert "generator.yaml" in str(err.value) and "n_users" in str(err.value)


def test_bad_user_mode_is_an_input_error():
    with pytest.raises(InputError, match="user mode"):
        RetailSuite(user_mode="telepathic")
    with pytest.raises(InputError, match="needs a user model"):
        RetailSuite(user_mode="llm")


@pytest.mark.parametrize("expression", ["(10 ** 10000) ** 10000", "9 ** 9 ** 9", "2 ** 10000000"])
def test_calculate_refuses_huge_integer_powers_quickly(tools, expression):
    assert run_tool(tools, "calculate", {"expression": expression}) == (False, "Error: exponent too large")


@pytest.mark.parametrize("expression, result", [
    (" + ".join(["1.14"] * 1099 + ["5.93"]), "1258.79"),  # a 1,100-term price sum: 1099 x 1.14 + 5.93
    (" + ".join(["1.5"] * 2500), "3750.0"),
    ("-" * 985 + "5", "-5.0"), ("-" * 2900 + "5", "5.0"), ("- " * 2001 + "(2 + 3)", "-5.0"),
    ("10 - " + " - ".join(["0.01"] * 1500), "-5.0"),
], ids=["price-sum-1100", "sum-2500", "minus-985", "minus-2900", "spaced-minus-2001", "difference-1501"])
def test_calculate_evaluates_long_flat_sums_and_sign_chains(expression, result):
    before = sys.getrecursionlimit()
    assert calculate(expression) == result
    assert sys.getrecursionlimit() == before  # the parser's raised limit is restored


def test_calculate_nesting_limit_is_a_fixed_number_on_every_interpreter(tools):
    """2,901 terms and 2,900 signs evaluate, one more does not: MAX_DEPTH, not the parser's limit."""
    assert calculate("+".join(["1"] * 2901)) == "2901.0" and calculate("-" * 2900 + "1") == "1.0"
    for expression in ("+".join(["1"] * 2902), "-" * 2901 + "1"):
        assert run_tool(tools, "calculate", {"expression": expression}) == (False, "Error: expression too complex to evaluate")


@pytest.mark.parametrize("expression", [" + ".join(["1"] * 3500), "-" * 3500 + "1", "-" * 6000 + "1"],
                         ids=["sum-3500", "minus-3500", "minus-6000"])
def test_calculate_refuses_deeper_nesting_than_python_compiles(tools, expression):
    assert run_tool(tools, "calculate", {"expression": expression}) == (False, "Error: expression too complex to evaluate")
