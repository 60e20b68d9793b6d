"""Report documents, kept under the report package's name: they live in harnessx/formatting/document.py."""

from harnessx.formatting.document import CSS, Document, Figure

__all__ = ["CSS", "Document", "Figure"]
