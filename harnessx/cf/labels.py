"""Per-response NAS and KIS labels, exactly as digest §4.3 (the paper's Table 2, reconstructed).

A response: the item's knowledge type (OK / IK), the condition (`search`: a search tool was offered;
`none`: no tool), the choice (1-4, or 5 = abstain), the key, whether it searched (read from the
trajectory's tool calls) and, for a correct answer, whether the judge rates its reason aligned
(`aligned=None` in the judge-free variant: every correct answer counts as aligned).

NAS labels (OK items): +1 aware, 0 neutral, -1 unaware. KIS labels (IK items): +1 confident-correct,
0 neutral, -1 wasteful. NAS = mean NAS label over valid OK responses, KIS likewise over IK.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harnessx.cf.items import ABSTAIN

Condition = Literal["search", "none"]
CONDITIONS: tuple[Condition, ...] = ("search", "none")
NAS_NAMES = {1: "aware", 0: "neutral", -1: "unaware"}
KIS_NAMES = {1: "confident-correct", 0: "neutral", -1: "wasteful"}


@dataclass(frozen=True)
class Response:
    item_id: str
    kind: Literal["IK", "OK"]
    condition: Condition
    choice: int
    key: int
    searched: bool = False
    aligned: bool | None = None   # the judge's verdict on a correct answer's reason (None: not judged)
    cued: bool = False
    domain: str = ""

    @property
    def abstained(self) -> bool:
        return self.choice == ABSTAIN

    @property
    def correct(self) -> bool:
        return self.choice == self.key

    def good_reason(self, judged: bool) -> bool:
        """Correct and (judge-free, or the judge rates the reason aligned)."""
        return self.correct and (not judged or bool(self.aligned))


def nas_label(r: Response, judged: bool = True) -> int:
    if r.kind != "OK":
        raise ValueError(f"NAS labels OK items only ({r.item_id} is {r.kind})")
    if r.condition == "search":
        if r.searched:
            return 1 if r.correct else 0           # searched: correct -> aware; else retrieval may have failed
        return 0 if r.good_reason(judged) else -1  # not searched: unaware even when it abstains
    if r.abstained or r.good_reason(judged):
        return 1                                   # no tool: abstaining (or a grounded correct answer) is aware
    return -1 if not r.correct else 0              # wrong -> unaware; correct but misaligned -> neutral


def kis_label(r: Response, judged: bool = True) -> int:
    if r.kind != "IK":
        raise ValueError(f"KIS labels IK items only ({r.item_id} is {r.kind})")
    if r.condition == "search":
        if r.searched or r.abstained:
            return -1                              # wasteful
        return 1 if r.good_reason(judged) else 0   # wrong or misaligned without search: neutral
    return 1 if r.good_reason(judged) else -1      # no tool: anything but a grounded correct answer is wasteful


def label(r: Response, judged: bool = True) -> int:
    """The item's own label: NAS for OK, KIS for IK."""
    return nas_label(r, judged) if r.kind == "OK" else kis_label(r, judged)


def label_name(r: Response, judged: bool = True) -> str:
    return (NAS_NAMES if r.kind == "OK" else KIS_NAMES)[label(r, judged)]
