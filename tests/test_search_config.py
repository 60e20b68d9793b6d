"""SearchConfig in parts (run, budget, execution, tracking): each part refuses a bad value when it is
made, naming the command-line flag and the value expected; a search's config.json keeps its shape."""

from __future__ import annotations

import json

import pytest

from harnessx.envs.toy import ToySuite
from harnessx.errors import InputError
from harnessx.search import Search
from harnessx.search.config import BudgetConfig, ExecutionConfig, RunConfig, SearchConfig, TrackingConfig

CONFIG_JSON_KEYS = {"objective", "env", "suite_options", "model", "api_base", "simulated", "proposer", "meta_model",
                    "accept", "accept_options", "alpha", "rounds", "proposals", "epochs", "seeds", "sources", "task_ids", "temperature",
                    "top_p", "suite_hash", "search_space", "max_rollouts", "max_cost", "concurrency", "storage",
                    "tracking_uri", "created", "run_id"}


@pytest.mark.parametrize("part, options, flag, expected", [
    (RunConfig, {"epochs": 0}, "--epochs", "an integer >= 1"),
    (RunConfig, {"alpha": 1.0}, "--alpha", "strictly between 0 and 1"),
    (RunConfig, {"top_p": 1.5}, "--top-p", "from 0 to 1"),
    (RunConfig, {"sources": -1}, "--sources", ">= 0"),
    (BudgetConfig, {"proposals": 0}, "--proposals", "an integer >= 1"),
    (BudgetConfig, {"rounds": -1}, "--rounds", "an integer >= 0"),
    (BudgetConfig, {"max_rollouts": 0}, "--max-rollouts", "an integer >= 1"),
    (BudgetConfig, {"max_cost": -0.5}, "--max-cost", ">= 0"),
    (ExecutionConfig, {"executor": "spark"}, "--executor", "one of asyncio, ray, queue"),
    (ExecutionConfig, {"concurrency": 0}, "--concurrency", "an integer >= 1"),
    (ExecutionConfig, {"ray_address": "auto"}, "--ray-address", "applies to --executor ray"),
    (TrackingConfig, {"mlflow_traces": -2}, "--mlflow-traces", ">= -1"),
])
def test_each_part_refuses_a_bad_value_naming_the_flag(part, options, flag, expected):
    with pytest.raises(InputError) as caught:
        part(**options)
    assert caught.value.source == flag and expected in str(caught.value)
    with pytest.raises(InputError, match=flag):  # the same through the flat builder
        SearchConfig.of(**options)


def test_the_queue_executor_needs_storage_across_parts():
    with pytest.raises(InputError, match="--executor queue: needs --storage"):
        SearchConfig.of(executor="queue")
    assert SearchConfig.of(executor="queue", storage="sqlite:///x.db").tracking.storage == "sqlite:///x.db"


def test_fields_are_routed_to_their_part_and_unknown_ones_refused():
    config = SearchConfig.of(rounds=2, env="toy", runs_dir="r", executor="asyncio", name="n")
    assert (config.budget.rounds, config.run.env, config.tracking.runs_dir, config.run_name) == (2, "toy", "r", "n")
    moved = config.replaced(runs_dir="elsewhere", epochs=3)
    assert (moved.tracking.runs_dir, moved.run.epochs, config.tracking.runs_dir) == ("elsewhere", 3, "r")
    assert moved.seeds == moved.run.seeds and len(moved.seeds) == 3
    with pytest.raises(TypeError, match="no part has the field"):
        SearchConfig.of(round=2)


def test_config_json_keeps_its_shape(tmp_path):
    search = Search(SearchConfig.of(env="toy", rounds=0, runs_dir=str(tmp_path), tracking_uri=None), suite=ToySuite(2))
    record = search.config_record()
    assert set(record) | {"run_id"} == CONFIG_JSON_KEYS
    assert (record["rounds"], record["concurrency"], record["storage"]) == (0, 8, None)
    json.dumps(record)
