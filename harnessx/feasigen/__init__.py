"""FeasiGen (digest §3): infeasible tasks by critical-tool masking, the STOP protocol, FCR / SR /
FASS, planner → executor, and the statistics of its human verification.

Modules: `protocol` (STOP parser, decision, token accounting, harnesses), `construct` (run k
systems, critical tools, retention), `masking` (infeasible tasks, failure-mode flags), `check`
(mechanical check by replay), `suite` (the built suite on disk; `--env feasigen --tasks-dir`),
`benchmark` (per-trial scorer and objectives), `metrics`, `verification`, `evaluate`, `report`.
"""
