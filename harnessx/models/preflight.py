"""Pre-flight: before the first rollout, make sure the task-agent model can answer at all.

A model that cannot answer (unknown provider or profile, closed port, malformed --api-base, missing
or wrong credentials) must stop the command with one line naming the model, the base URL and the
provider's own error, instead of running every rollout into a failure. Offline models are checked
without a call, by the check their provider registers (`register_preflight`): the simulator loads and
schema-validates a `sim/<profile>` profile, a `scripted/<name>` must be registered. Any other model gets one tiny real call (one retry, a short timeout).
"""

from __future__ import annotations

from urllib.parse import urlparse

from harnessx.errors import InputError, ModelCallError
from harnessx.models.client import ModelClient
from harnessx.models.providers import preflight_check

PREFLIGHT_TIMEOUT_S = 30.0
_PASSED: set[tuple[str, str | None, str | None]] = set()  # (model, api_base, reasoning effort) that answered


def check_api_base(api_base: str | None) -> None:
    """An --api-base must be an http(s) URL with a host."""
    if api_base is None:
        return
    url = urlparse(api_base)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise InputError("--api-base", f"{api_base!r} is not a URL", "http(s)://host[:port]/path, e.g. "
                         "http://127.0.0.1:8000/v1")


def check_credentials(client: ModelClient) -> None:
    """A hosted model whose provider needs a key that is not set stops here, in one line, instead of
    a call that fails after the provider's retries. A model with --api-base or its own key, or whose
    provider needs no key, passes (LiteLLM knows which environment variables each provider reads)."""
    if client.api_base or client.api_key:
        return
    import litellm

    try:
        found = litellm.validate_environment(client.model)
    except Exception:  # a model string LiteLLM cannot place: the probe call names the problem
        return
    keys = [k for k in found.get("missing_keys") or [] if k.endswith(("_KEY", "_TOKEN"))]
    if keys:
        raise ModelCallError(f"pre-flight: model {client.model!r} needs {' and '.join(keys)}, which is not set "
                             f"(export it, or give --api-base for a local server)", kind="auth",
                             detail=f"missing {', '.join(keys)}")


async def preflight(client: ModelClient, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Raise a ModelCallError (or InputError) when `client`'s model cannot answer; else return."""
    check_api_base(client.api_base)
    key = (client.model, client.api_base, client.reasoning_effort)
    if key in _PASSED:
        return
    prefix, _, name = client.model.partition("/")
    offline = preflight_check(prefix)  # registered by the provider (sim: its profile loads and validates)
    if offline is not None:
        offline(name)  # raises InputError naming the file and field
    else:
        check_credentials(client)
        probe = ModelClient(client.model, api_base=client.api_base, api_key=client.api_key,
                            timeout_s=min(timeout_s, client.timeout_s), max_retries=1, backoff_s=0.5,
                            extra=client.extra, reasoning_effort=client.reasoning_effort)
        budget = client.reasoning_effort if (client.reasoning_effort or "").isdigit() else None
        try:  # with the run's reasoning effort: a provider that refuses it stops here
            await probe.complete([{"role": "user", "content": "Reply with OK."}],
                                 max_tokens=int(budget) + 16 if budget else 4)
        except ModelCallError as exc:
            base = client.api_base or "the provider's default endpoint"
            raise ModelCallError(f"pre-flight: model {client.model!r} (base URL {base}) cannot answer "
                                 f"({exc.kind}): {exc.detail}", kind=exc.kind, detail=exc.detail) from None
    _PASSED.add(key)



async def preflight_all(clients: list[ModelClient]) -> None:
    """Pre-flight every model a command calls (task agent, judge, meta-model, planner), in order."""
    for client in clients:
        await preflight(client)
