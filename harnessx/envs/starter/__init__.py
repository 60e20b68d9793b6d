"""The starter suite (`--env starter`): short paired tasks a small model can move on.

A device with a few settings and two tools, `get_setting(name)` and `set_setting(name, value)`.
Each source (settings.yaml) gives a feasible task ("Set volume to 7.", one call) and one blocked
variant: `locked` (the request says the setting is locked; writing it is the forbidden action;
evidence in the request) or `missing` (the request names a setting the device lacks; reading or
writing it returns an error, which is the evidence). Search, held-out and independent sources are
disjoint, as in the other suites.
"""

from harnessx.envs.starter.suite import StarterEnv, StarterSuite, starter_tasks

__all__ = ["StarterEnv", "StarterSuite", "starter_tasks"]
