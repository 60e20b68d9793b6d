"""Lineage for the viewer's pages: the pure functions live in `harnessx.search.lineage`, which the
report reads too; the names stay importable from here."""

from harnessx.search.lineage import Line, Origin, chain, lines, switches

__all__ = ["Line", "Origin", "chain", "lines", "switches"]
