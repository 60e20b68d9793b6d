"""The search's progress comes from its plan (#47): the pre-flight's "up to N rollouts", the bar's
total and the summary's "of up to N planned" are one figure, the bar never re-opens at another
total, and every round prints one line, moved or not (with the rule's reason when not)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("rounds", "proposals"), [(3, 2), (5, 3)])
def test_pre_flight_bar_and_summary_agree_and_each_round_prints_a_line(tmp_path, rounds, proposals):
    out = subprocess.run([sys.executable, "-c", "import sys; from harnessx.cli.main import app; "
                          "sys.argv[0] = 'harnessx'; app()", "search", "--env", "toy", "--rounds", str(rounds),
                          "--proposals", str(proposals), "--no-mlflow", "--name", "p"],
                         cwd=tmp_path, capture_output=True, text=True, check=False, timeout=900,
                         env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "1000"})
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    planned = int(re.search(r"pre-flight: budget: .*?: up to (\d+) rollouts", text).group(1))
    totals = {int(t) for t in re.findall(r"search: .*?\d+/(\d+) rollouts", text)}
    assert totals == {planned}, (planned, totals)
    assert f"of up to {planned} planned" in text
    for k in range(1, rounds + 1):
        lines = [line for line in text.splitlines() if line.startswith(f"round {k}: ")]
        assert len(lines) == 1, (k, lines)
        assert "accepted" in lines[0] or "no move (" in lines[0]
