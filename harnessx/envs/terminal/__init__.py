"""The terminal environment: Terminal-Bench 2 / Harbor task directories (plus a `[harnessx]` table),
run in a sandbox (bwrap, unshare or docker), with a pytest verifier and the `infeasible.md` abandon
file; `TerminalSuite` serves the built-in generated suite or a user's `tasks_dir`."""
