"""One llama.cpp model per process and name: loaded lazily once, generation serialized.

A llama.cpp context is not thread-safe, so every call takes the model's lock; callers run `chat`
in a worker thread so that the event loop keeps going while the model generates. Time spent
waiting for the lock is reported apart from generation time (`queue_s` vs `seconds`), so that an
agent's own time does not depend on how many rollouts share the model.

Prefix (KV) caching: llama.cpp keeps the evaluated tokens of the last call and re-evaluates only
what differs, so rollouts of one harness share the cost of their common prompt prefix. Setting
HARNESSX_LOCAL_PREFIX_CACHE=0 (or `LocalModel.prefix_cache = False`) resets the context before
every call, which is how bench/realmodel_search.py measures what the cache saves.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from harnessx.local.chat import ToolCallHandler
from harnessx.local.weights import INSTALL_HINT, ModelUnavailable, gguf_path

N_CTX = 8192  # SmolLM2's training context; prompt + output must fit
# llama.cpp's own default; its worker threads spin, so more threads than idle cores slows it down
# many times over (seen here: 2 threads on 2 busy cores, 15x slower than 1).
THREADS = max(1, (os.cpu_count() or 2) // 2)
# No repeat penalty: the in-process engine and `harnessx local serve` both decode with it (llama.cpp's
# server would default to 1.1, and the two paths would then answer the same prompt differently).
REPEAT_PENALTY = 1.0


@dataclass(frozen=True)
class Generation:
    """One chat completion: the text, real token counts from llama.cpp, and its time."""

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float  # generating, lock wait excluded
    queue_s: float = 0.0  # waiting for the model's lock (other rollouts' generations)
    tool_calls: tuple[dict, ...] = ()  # OpenAI-style, when tools were offered


class LocalModel:
    """A loaded GGUF model; `chat` applies the model's own chat template (from the GGUF)."""

    def __init__(self, name: str):
        self.name = name
        self.path = gguf_path(name)
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelUnavailable(f"local model {name!r} needs llama-cpp-python: {INSTALL_HINT}") from None
        with plain_weight_buffers():
            self._llama = Llama(model_path=str(self.path), n_ctx=N_CTX, n_threads=THREADS,
                                n_threads_batch=THREADS, seed=0, verbose=False, chat_handler=ToolCallHandler())
        self._lock = threading.Lock()
        self.prefix_cache = os.environ.get("HARNESSX_LOCAL_PREFIX_CACHE", "1") != "0"
        self.calls = 0
        self.seconds = 0.0  # total time spent generating, lock waits excluded

    def chat(self, messages: list[dict], max_tokens: int | None = None, temperature: float = 0.0,
             seed: int | None = None, top_p: float | None = None, tools: list[dict] | None = None,
             tool_choice: object = None, response_format: dict | None = None) -> Generation:
        asked = time.perf_counter()
        with self._lock:
            start = time.perf_counter()
            if not self.prefix_cache:
                self._llama.reset()  # forget the evaluated tokens: the whole prompt is evaluated again
            out = self._llama.create_chat_completion(
                messages=messages, max_tokens=max_tokens, temperature=temperature, seed=seed,
                repeat_penalty=REPEAT_PENALTY,
                **({"top_p": top_p} if top_p is not None else {}), tools=tools or None, tool_choice=tool_choice,
                response_format=response_format)
            seconds = time.perf_counter() - start
            self.calls += 1
            self.seconds += seconds
        choice, usage = out["choices"][0], out["usage"]
        return Generation(text=choice["message"].get("content") or "", finish_reason=choice.get("finish_reason") or "stop",
                          prompt_tokens=usage["prompt_tokens"], completion_tokens=usage["completion_tokens"],
                          seconds=seconds, queue_s=start - asked,
                          tool_calls=tuple(choice["message"].get("tool_calls") or ()))


@contextlib.contextmanager
def plain_weight_buffers() -> Iterator[None]:
    """Load weights without llama.cpp's extra buffer types (AMX / repacked CPU weights).

    On a CPU that reports AMX inside a VM that does not grant it (seen here: a Firecracker guest),
    any batch of more than one token crashes the process in those kernels. llama-cpp-python has no
    option for `use_extra_bufts`, so the default model parameters are wrapped while loading.
    """
    from llama_cpp import llama_cpp as lib  # the ctypes bindings, as llama_cpp.llama sees them

    original = lib.llama_model_default_params

    def defaults():
        params = original()
        params.use_extra_bufts = False
        return params

    lib.llama_model_default_params = defaults
    try:
        yield
    finally:
        lib.llama_model_default_params = original


_MODELS: dict[str, LocalModel] = {}
_LOADING = threading.Lock()


def get_model(name: str) -> LocalModel:
    """The process-wide model `name`, loaded on first use (raises ModelUnavailable)."""
    with _LOADING:
        if name not in _MODELS:
            _MODELS[name] = LocalModel(name)
        return _MODELS[name]
