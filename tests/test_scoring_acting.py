"""harnessx/scoring/acting.py: which calls fall in a task's classes of acting on the blocker."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harnessx.scoring.acting import acting_call, matches
from harnessx.tasks import Act, Blocker, Evidence, Task
from harnessx.trajectory import Trajectory

VALUES = st.one_of(st.text(max_size=12), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())


@settings(deadline=None)  # no wall-clock bound on a shared machine
@given(st.dictionaries(st.sampled_from(["name", "value", "path", "other"]), VALUES, max_size=4))
def test_a_call_of_the_tool_matches_whatever_its_arguments(arguments):
    assert matches(Act(tool="set_setting"), "set_setting", arguments)
    assert not matches(Act(tool="set_setting"), "get_setting", arguments)


@settings(deadline=None)
@given(VALUES)
def test_supplies_matches_any_value_of_the_parameter_and_nothing_without_it(value):
    act = Act(tool="find", supplies=["name"])
    assert matches(act, "find", {"path": ".", "name": value})
    assert not matches(act, "find", {"path": "."})


def test_args_and_unless_compare_strings_without_case_and_numbers_by_value():
    act = Act(tool="set_setting", unless={"name": "Volumn"})
    assert not matches(act, "set_setting", {"name": " volumn ", "value": "3"})
    assert matches(act, "set_setting", {"name": "volume", "value": "3"})
    assert matches(Act(tool="t", args={"n": 2}), "t", {"n": 2.0})
    assert not matches(Act(tool="t", args={"flag": True}), "t", {"flag": 1})


def test_paths_match_globs_directories_and_normalised_relative_forms():
    act = Act(tool="write_file", paths=["/app/out.json", "out.json", "/app/data"])
    for path in ("/app/out.json", "out.json", "./out.json", "/app/./out.json", "/app/data/x.csv"):
        assert matches(act, "write_file", {"path": path}), path
    for path in ("/app/out.json.bak", "/app/database", "", None, 3):
        assert not matches(act, "write_file", {"path": path}), path
    assert not matches(act, "write_file", "not a dict")


def _task(acts):
    return Task(id="b", env="x", split="search", feasible=False, family="ambiguous", source_id="s", instruction="i",
                blocker=Blocker(id="b", description="d"), evidence=Evidence(where="observation", turn=1), acts=acts)


def _events(*calls_per_turn):
    traj = Trajectory()
    traj.append("start", "harness", 0, task_id="b")
    for turn, calls in enumerate(calls_per_turn):
        traj.append("message", "user", turn, role="task" if turn == 0 else "user", content=f"turn {turn}")
        for name in calls:
            traj.append("tool_call", "agent", turn, name=name, arguments={})
    return traj.events


def test_a_class_counts_only_inside_its_window_of_turns():
    task = _task([Act(tool="mv", from_turn=1, until_turn=2)])
    assert acting_call(task, _events(["mv"], [], ["mv"])) is None  # before and after the blocked turn
    found = acting_call(task, _events(["mv"], ["ls", "mv"], ["mv"]))
    assert found is not None and found[1].tool == "mv"
    assert acting_call(task, _events([], ["mv"])) is not None  # the value never came: open to the end
    assert acting_call(task.model_copy(update={"feasible": True, "family": None}), _events([], ["mv"])) is None


def test_a_task_without_acts_dumps_as_before():
    assert "acts" not in _task([]).model_dump()
    assert _task([Act(tool="mv")]).model_dump()["acts"][0]["tool"] == "mv"
