"""BFCL conformance: ground truth through our environment scores like BFCL's checker; doing nothing fails."""

from __future__ import annotations

import pytest
from conftest import require

require("bfcl")  # before the imports below: they import bfcl_eval

from harnessx.envs.bfcl.conformance import conformance  # noqa: E402


@pytest.mark.parametrize("category", ["base", "miss_func", "miss_param", "long_context"])
def test_gold_passes_and_nothing_fails_on_every_entry(category):
    result = conformance(category)
    assert result.entries == 200
    assert result.problems == []
    assert result.checker_passes_gold == result.env_passes_gold == 200
    assert result.nothing_fails == result.needs_a_call == 200
