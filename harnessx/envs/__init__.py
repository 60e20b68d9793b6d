"""Environments and their task suites, looked up by name."""
