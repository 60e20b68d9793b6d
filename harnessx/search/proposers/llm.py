"""The `llm` proposer: a DSPy module on any LiteLLM model (`--meta-model`).

It sees the incumbent harness, its scorecard, raw failing trajectories from the search split and
the whole history, rejected proposals and their reasons included. Each of the K proposals of a
round is a separate call with its own rollout id (distinct samples, still cacheable and
replayable). The typed output is validated against the harness model; an unparseable, invalid,
useless (no change) or repeated edit, or a failed meta-model call, is dropped with its reason in
`dropped` (the search loop reports them), never evaluated and never a crash.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import Any, Literal

import dspy
import pydantic
from dspy.utils.exceptions import AdapterParseError

from harnessx.errors import InputError, ModelCallError
from harnessx.harness import COMPONENTS, Harness
from harnessx.models.failures import classify
from harnessx.search.proposers.base import Proposal, Proposer, RoundContext
from harnessx.search.traces import failing

MAX_FAILURES = 4
MAX_HISTORY = 40
# DSPy 3.4 and later send a call through their own client (lm15) unless told otherwise; every model
# call of HarnessX goes through LiteLLM, so the proposer asks for it where DSPy has the choice.
LITELLM_ENGINE = {"engine": "litellm"} if "engine" in inspect.signature(dspy.LM.__init__).parameters else {}
# What a failed meta-model call does (its kind from `harnessx.models.failures.classify`, which reads
# LiteLLM's errors and DSPy's wrappers of them alike): a failure of this draft's call (a refused
# request, a timeout, a lost connection, a server error, a malformed reply) drops the slot with its
# reason; any other (a bad key, an unknown model, a rate limit past retries) would fail every slot
# alike, so the search stops with one line naming the meta-model and the provider's error.
SLOT_FAILURES = frozenset({"bad_request", "timeout", "connection", "server", "malformed_response"})


class HarnessEdit(pydantic.BaseModel):
    component: Literal[COMPONENTS]  # type: ignore[valid-type]
    new_text: str = pydantic.Field(description="the full new text of that component")
    switches: dict[str, str | int | bool] = pydantic.Field(default_factory=dict,
                                                           description="switch changes, e.g. {'self_check': 'end'}")
    hypothesis: str = pydantic.Field(description="a falsifiable reason this fixes a recurring failure")


class ProposeHarnessEdit(dspy.Signature):
    """Improve an LLM agent's harness (its prompts and switches, not the model) so that it solves
    feasible tasks and defers, through the certified abandon action and for the right reason, on
    blocked ones. Fix recurring failure clusters; do not hard-code task specifics; do not repeat an
    edit the history shows was rejected."""

    objective: str = dspy.InputField(desc="what the search maximises")
    harness: str = dspy.InputField(desc="the incumbent harness (YAML): components and switches")
    scorecard: str = dspy.InputField(desc="the incumbent's rates on the search split, with n and failure modes")
    failures: list[str] = dspy.InputField(desc="raw failing trajectories of the incumbent (search split)")
    history: list[str] = dspy.InputField(desc="every earlier proposal, accepted or rejected, with scores and why")
    edit: HarnessEdit = dspy.OutputField()


class LLMProposer(Proposer):
    name = "llm"

    def __init__(self, meta_model: str | dspy.LM, temperature: float = 1.0, api_base: str | None = None,
                 max_tokens: int | None = None):
        server = {"api_base": api_base, "api_key": "local"} if api_base else {}
        self.lm = meta_model if isinstance(meta_model, dspy.BaseLM) else dspy.LM(
            meta_model, temperature=temperature, **server, **LITELLM_ENGINE,
            **({"max_tokens": max_tokens} if max_tokens else {}))
        self.temperature = temperature
        self.module = dspy.ChainOfThought(ProposeHarnessEdit)
        self.dropped: list[str] = []  # why each draft of the last round was not proposed

    @classmethod
    def from_options(cls, meta_model: str | None = None, api_base: str | None = None) -> LLMProposer:
        if not meta_model:
            raise InputError("--proposer llm", "needs a meta-model", "--meta-model <LiteLLM model string>")
        return cls(meta_model, api_base=api_base)

    def propose(self, ctx: RoundContext, k: int) -> list[Proposal]:
        inputs = {"objective": _objective_text(ctx), "harness": ctx.incumbent.to_yaml(),
                  "scorecard": _scorecard_text(ctx), "failures": failing_trajectories(ctx),
                  "history": [_history_line(row) for row in ctx.history[-MAX_HISTORY:]]}
        seen = ctx.seen_hashes() | {ctx.incumbent.hash}
        rejected = ctx.rejected_edits()
        out: list[Proposal] = []
        self.dropped = []
        for slot in range(k):
            config = {"rollout_id": f"{ctx.seed}-{ctx.round}-{slot}", "temperature": self.temperature}
            try:
                with dspy.context(lm=self.lm):
                    prediction = self.module(**inputs, config=config)
            except AdapterParseError as exc:  # the typed output did not validate: no proposal from this slot
                self.dropped.append(f"slot {slot}: the reply is not a typed edit ({_first_line(exc)})")
                continue
            except Exception as exc:
                failure = classify(exc)
                if failure is None:  # not a model failure: a bug, shown as one
                    raise
                if failure.kind in SLOT_FAILURES:
                    self.dropped.append(f"slot {slot}: the meta-model call failed ({type(exc).__name__}: {_first_line(exc)})")
                    continue
                raise ModelCallError(f"meta-model {self.lm.model}: {type(exc).__name__}: {_first_line(exc)}",
                                     kind=failure.kind, detail=failure.detail) from exc
            proposal = _to_proposal(ctx, prediction.edit, getattr(prediction, "reasoning", ""))
            if isinstance(proposal, str):
                self.dropped.append(f"slot {slot}: {proposal}")
            elif proposal.harness.hash == ctx.incumbent.hash:
                self.dropped.append(f"slot {slot}: the edit changes nothing")
            elif proposal.harness.hash in seen:
                self.dropped.append(f"slot {slot}: the edit repeats a harness already evaluated")
            elif proposal.edit in rejected:
                self.dropped.append(f"slot {slot}: the edit repeats a rejected one")
            else:
                seen.add(proposal.harness.hash)
                out.append(proposal)
        return out


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _to_proposal(ctx: RoundContext, edit: Any, reasoning: str) -> Proposal | str:
    """The proposal, or why the edit is invalid."""
    try:
        edit = edit if isinstance(edit, HarnessEdit) else HarnessEdit.model_validate(edit)
        harness: Harness = ctx.incumbent.with_component(edit.component, edit.new_text)
        if edit.switches:
            harness = harness.with_switches(**edit.switches)
    except (pydantic.ValidationError, TypeError, ValueError) as exc:
        return f"the edit is invalid ({_first_line(exc)})"
    digest = hashlib.sha256(json.dumps(edit.model_dump(exclude={"hypothesis"}), sort_keys=True).encode()).hexdigest()
    key = f"{edit.component}@{digest[:10]}"
    rationale = edit.hypothesis + (f"\n\nreasoning: {reasoning}" if reasoning else "")
    return Proposal(harness.renamed(f"R{ctx.round}", edit=key), key, rationale, edit.component)


def _objective_text(ctx: RoundContext) -> str:
    if ctx.objective.name == "sa":
        return "strict SA: share of blocked tasks where the agent itself certifies the deferral, in time, for the right reason"
    return "joint: (strict-SA successes on blocked tasks + solved feasible tasks) / all search tasks"


def _scorecard_text(ctx: RoundContext) -> str:
    card = ctx.evaluation.scorecard
    rates = {k: str(getattr(card, k)) for k in ("strict_sa", "relaxed_sa", "solve", "false_abstention", "joint")}
    return json.dumps({**rates, "failure_modes": ctx.failure_modes()}, indent=1)


def _history_line(row: dict[str, Any]) -> str:
    verdict = "ACCEPTED" if row["accepted"] else "rejected"
    value = row["objective"]["value"]
    return (f"round {row['round']} slot {row['slot']} [{verdict}] edit={row['edit'] or 'R0'} "
            f"{row['objective']['name']}={value if value is None else round(value, 3)} (n={row['objective']['n']}) "
            f"Δ={row.get('mean_diff')} p={row.get('p_value')}: {row['reason']} | hypothesis: {row['rationale'][:300]}")


def failing_trajectories(ctx: RoundContext) -> list[str]:
    """Raw trajectories of the incumbent's failures, the dominant failure mode first."""
    return [f"[{s.failure_mode}] task {s.task_id} ({'feasible' if s.feasible else s.family}):\n{text}"
            for s, text in failing(ctx.evaluation, ctx.trajectory, MAX_FAILURES, list(ctx.failure_modes()))]
