"""The `harnessx` command line."""
