"""Probes that run after a search: belief (does the agent know?) and challenge (does it hold?)."""
