"""A local, read-only web viewer over the runs folder (`harnessx view`)."""

from harnessx.viewer.app import create_app

__all__ = ["create_app"]
