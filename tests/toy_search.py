"""A small toy search run from inside a folder, as a user runs it there (MLflow's default store,
sqlite:///mlruns/mlflow.db, is relative to where the user runs): shared by the MLflow tests."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from harnessx.envs.toy import ToySuite
from harnessx.search import Search, SearchConfig


def toy_search_in(folder: Path, name: str, n_sources: int, concurrency: int) -> Path:
    """Search the toy suite (R0 + 1 round x 2, greedy, rules proposer) with `folder` as the working
    directory; returns `folder`."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        config = SearchConfig.of(objective="joint", env="toy", rounds=1, proposals=2, runs_dir="runs", name=name,
                                 concurrency=concurrency, accept="greedy", proposer="rules")
        asyncio.run(Search(config, suite=ToySuite(n_sources=n_sources)).run())
    finally:
        os.chdir(here)
    return folder
