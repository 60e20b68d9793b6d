"""Reasoning-alignment judges (digest §4.2): applied to correct answers only; aligned iff score >= 70.

- `OverlapJudge` (offline default, deterministic): score = 100 x the share of the ground-truth
  rationale's content words (lower-cased, light stemming) that the model's reason contains.
- `LLMAlignmentJudge("openai/gpt-4.1-mini")`: the paper's prompt (App. C.2, `judge_prompt.yaml`) on
  any LiteLLM model, JSON `{score, alignment, summary}`; verdicts cached per (prompt version, model,
  rationale, reason). An unusable judge reply is a judge failure: the trial is excluded and counted.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import yaml

from harnessx.errors import ModelCallError

if TYPE_CHECKING:  # the client (and LiteLLM) loads when an LLM judge is built: listing benchmarks stays light
    from harnessx.models.client import ModelClient

THRESHOLD = 70
PROMPT_FILE = Path(__file__).parent / "judge_prompt.yaml"
_WORD = re.compile(r"[a-z0-9$][a-z0-9$.,\-']*[a-z0-9]|[a-z0-9]")
STOPWORDS = frozenset("""a an the and or of to in on for with by at from is are was were be been it its this that
these those as says said will would can could has have had which who whom what when where why how not no
do does did so than then there their they them his her he she we our you your i my me also into about""".split())


@dataclass(frozen=True)
class AlignmentVerdict:
    score: int | None = None
    aligned: bool | None = None
    summary: str = ""
    failure: str | None = None


@runtime_checkable
class AlignmentJudge(Protocol):
    name: str

    def align(self, rationale: str, reason: str) -> AlignmentVerdict: ...


def _stem(word: str) -> str:
    word = word.strip(".,'").replace("'s", "")
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS and _stem(w)}


class OverlapJudge:
    name = "overlap/v1"

    def align(self, rationale: str, reason: str) -> AlignmentVerdict:
        truth = content_words(rationale)
        if not truth:
            return AlignmentVerdict(failure="the ground-truth rationale has no content words")
        found = truth & content_words(reason)
        score = round(100 * len(found) / len(truth))
        return AlignmentVerdict(score, score >= THRESHOLD, f"{len(found)}/{len(truth)} rationale words in the reason")


@lru_cache(maxsize=1)
def judge_prompt() -> tuple[str, str]:
    data = yaml.safe_load(PROMPT_FILE.read_text(encoding="utf-8"))
    return data["version"], data["template"]


def render_judge_prompt(rationale: str, reason: str) -> str:
    return judge_prompt()[1].replace("{grd_reason}", rationale).replace("{gen_reason}", reason)


def parse_judge_reply(text: str) -> AlignmentVerdict:
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    try:
        obj = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        obj = None
    if not isinstance(obj, dict):
        return AlignmentVerdict(failure=f"judge reply is not JSON: {str(text)[:200]!r}")
    score = obj.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 100:
        return AlignmentVerdict(failure=f"judge score {score!r} is not a number 0-100")
    # aligned iff score >= 70 (the paper's rule), whatever the judge's own `alignment` field says
    return AlignmentVerdict(int(score), score >= THRESHOLD, str(obj.get("summary", ""))[:500])


class LLMAlignmentJudge:
    def __init__(self, model: str | None = None, *, client: ModelClient | None = None,
                 cache_dir: str | Path | None = None):
        if client is None and model is None:
            raise ValueError("LLMAlignmentJudge needs a model string or a ModelClient")
        if client is None:
            from harnessx.models.client import ModelClient

            client = ModelClient(model, temperature=0.0)
        self.client = client
        self.version = judge_prompt()[0]
        self.name = f"llm/{self.client.model}/{self.version}"
        self.cache_dir = Path(cache_dir) if cache_dir else None

    def align(self, rationale: str, reason: str) -> AlignmentVerdict:
        from harnessx.scoring.llm_judge import _run  # the one judge event loop (LiteLLM keeps per-loop state)

        key = hashlib.sha256(json.dumps([self.version, self.client.model, rationale, reason]).encode()).hexdigest()
        path = self.cache_dir / f"{key}.json" if self.cache_dir else None
        if path is not None and path.is_file():
            return AlignmentVerdict(**json.loads(path.read_text(encoding="utf-8")))
        try:
            reply = _run(self.client.complete([{"role": "user", "content": render_judge_prompt(rationale, reason)}]))
        except ModelCallError as exc:
            return AlignmentVerdict(failure=f"judge call failed: {exc}")
        verdict = parse_judge_reply(reply.text)
        if path is not None and verdict.failure is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(asdict(verdict)), encoding="utf-8")
        return verdict
