"""BFCL v4 multi-turn as a HarnessX environment (data, API classes and checker from `bfcl-eval`)."""
