"""The tool rubric (digest §2.2 step A.3): six dimensions rated True / False / Unknown, and the
paper's final rule: external if ANY dimension is True, internal iff ALL are False, else unknown."""

from __future__ import annotations

from typing import Literal

from harnessx.errors import InputError

DIMENSIONS = ("interaction_scope", "data_privacy_scope", "data_temporal_scope", "modality_scope",
              "computational_scope", "data_scale_scope")
Status = Literal["True", "False", "Unknown"]
Label = Literal["external", "internal", "unknown"]


def classify(ratings: dict[str, str], source: str = "rubric") -> Label:
    """External ("Definitely Outside") / internal ("Potentially Inside") / unknown."""
    missing = [d for d in DIMENSIONS if d not in ratings]
    extra = [d for d in ratings if d not in DIMENSIONS]
    if missing or extra:
        raise InputError(source, f"rubric dimensions missing {missing} / unknown {extra}", f"all of {list(DIMENSIONS)}")
    values = [str(ratings[d]) for d in DIMENSIONS]
    bad = [v for v in values if v not in ("True", "False", "Unknown")]
    if bad:
        raise InputError(source, f"rubric status {bad[0]!r}", "True, False or Unknown")
    if "True" in values:
        return "external"
    if all(v == "False" for v in values):
        return "internal"
    return "unknown"
