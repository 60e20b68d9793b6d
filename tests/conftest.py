"""Shared fixtures. Peer data is read in place from ../shared (never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# LiteLLM fetches its model cost map from the network when it is imported, unless told to use its
# bundled copy; `harnessx` sets this on import, but a test module may import LiteLLM first.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """`../shared`; skips when absent, fails instead under HARNESSX_REQUIRE_SHARED=1 (CI)."""
    if not (SHARED / "data").is_dir():
        if os.environ.get("HARNESSX_REQUIRE_SHARED") == "1":
            pytest.fail(f"../shared/data is required (HARNESSX_REQUIRE_SHARED=1) but missing next to {REPO.name}")
        pytest.skip("../shared/data is absent: peer-data conformance tests skipped")
    return SHARED
