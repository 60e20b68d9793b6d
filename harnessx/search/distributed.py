"""How a search's rollouts are executed: the executor a `SearchConfig` asks for.

`asyncio` runs them in the search process. `ray` ships them to a Ray actor pool; the suite is
rebuilt on the actors from the registry (or shipped, when the search was given a suite object).
`queue` puts them on a queue study `<run>.rollouts` in the search's `--storage` database, with the
suite and model the workers must build; `harnessx worker runs/<name>` processes (and `workers`
slots of the search itself) run them. In every mode the search stays the one writer that decides
rounds, and a rollout's result does not depend on where it ran.
"""

from __future__ import annotations

from harnessx.envs.base import Suite
from harnessx.executors import Executor, ExecutorConfig, make_executor, suite_factory
from harnessx.executors.rollout_queue import encode_config, queue_name
from harnessx.models.client import ModelClient
from harnessx.search.config import SearchConfig


def search_executor(config: SearchConfig, suite: Suite, model: ModelClient, given_suite: bool) -> Executor:
    run, execution, tracking = config.run, config.execution, config.tracking
    spec = ExecutorConfig(kind=execution.executor, workers=execution.workers, ray_address=execution.ray_address,
                          storage=tracking.storage, queue_name=queue_name(config.run_name))
    factory = suite_factory(suite, None if given_suite else run.env, run.suite_options)
    shared = encode_config(run.env, run.suite_options, run.model, run.api_base, config.run_name,
                           tracking.tracking_uri, run.temperature, run.top_p, run.reasoning_effort)
    return make_executor(spec, suite, model, factory=factory, queue_config=shared)
