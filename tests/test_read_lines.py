"""Every command that reads a data set prints how many items it read, used and skipped (one helper,
`harnessx.cli.compare_cmd.read_line`): generated over the commands and their split choices, each
line checked against the suite's own counts (read = used + skipped, used = the chosen splits' tasks).
`kapro eval` and `cf eval` print theirs in their own words (tests/test_kapro_cli.py, test_cf_cli.py)."""

from __future__ import annotations

import asyncio
import re

import pytest
from typer.testing import CliRunner

from harnessx.cli.main import app
from harnessx.envs.registry import get_suite

LINE = re.compile(r"read (\d+) tasks of (.+?); using (\d+) \(([^)]*)\); skipped (\d+) \(([^)]*)\)")


def _line(output: str) -> tuple[int, int, dict[str, int], int, str]:
    m = LINE.search(" ".join(output.split()))  # the console wraps the line anywhere (its width, the path's length)
    assert m, f"no read/used/skipped line in:\n{output}"
    parts = dict((s, int(n)) for n, s in (p.split(" ", 1) for p in m.group(4).split(", ")))
    return int(m.group(1)), int(m.group(3)), parts, int(m.group(5)), m.group(6)


def _check(output: str, tasks, splits: list[str]) -> None:
    read, used, parts, skipped, why = _line(output)
    assert read == len(tasks) and read == used + skipped, output
    assert parts == {s: len([t for t in tasks if t.split == s]) for s in splits}, (parts, output)
    assert why.startswith("other splits")


@pytest.fixture(scope="module")
def feasigen_suite(tmp_path_factory):
    from harnessx.envs.retail.suite import RetailSuite
    from harnessx.feasigen.construct import BuildConfig, build

    out = tmp_path_factory.mktemp("fg") / "suite"
    asyncio.run(build(RetailSuite(), BuildConfig(env="retail", out=str(out), limit=4)))
    return out


@pytest.mark.parametrize("splits", [["search"], ["heldout"], ["search", "heldout"]])
def test_feasigen_eval_says_what_it_read_used_and_skipped(feasigen_suite, tmp_path, splits):
    args = ["feasigen", "eval", "--suite", str(feasigen_suite), "--out", str(tmp_path / "o")]
    for split in splits:
        args += ["--split", split]
    tasks = get_suite("feasigen", tasks_dir=str(feasigen_suite)).tasks()
    if not any(t.split in splits for t in tasks):
        pytest.skip("the small build kept no task of these splits")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    _check(result.output, tasks, splits)


@pytest.mark.parametrize("env", ["starter", "toy"])
def test_search_says_what_it_read_used_and_skipped(tmp_path, env):
    result = CliRunner().invoke(app, ["search", "--env", env, "--rounds", "1", "--name", "r", "--runs-dir",
                                      str(tmp_path), "--no-mlflow", "--certify-split", "none"])
    assert result.exit_code == 0, result.output
    _check(result.output, get_suite(env).tasks(), ["search"])
