"""The rollout loop (single and planner-executor topologies) and the concurrent, cached runner."""
