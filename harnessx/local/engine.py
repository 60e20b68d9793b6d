"""One llama.cpp model per process and name: loaded lazily once, generation serialized.

A llama.cpp context is not thread-safe, so every call takes the model's lock; callers run `chat`
in a worker thread so that the event loop keeps going while the model generates.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

from harnessx.local.weights import INSTALL_HINT, ModelUnavailable, gguf_path

N_CTX = 8192  # SmolLM2's training context; prompt + output must fit
# llama.cpp's own default; its worker threads spin, so more threads than idle cores slows it down
# many times over (seen here: 2 threads on 2 busy cores, 15x slower than 1).
THREADS = max(1, (os.cpu_count() or 2) // 2)


@dataclass(frozen=True)
class Generation:
    """One chat completion: the text, real token counts from llama.cpp, and its time."""

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float


class LocalModel:
    """A loaded GGUF model; `chat` applies the model's own chat template (from the GGUF)."""

    def __init__(self, name: str):
        self.name = name
        self.path = gguf_path(name)
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelUnavailable(f"local model {name!r} needs llama-cpp-python: {INSTALL_HINT}") from None
        self._llama = Llama(model_path=str(self.path), n_ctx=N_CTX, n_threads=THREADS,
                            n_threads_batch=THREADS, seed=0, verbose=False)
        self._lock = threading.Lock()
        self.calls = 0
        self.seconds = 0.0  # total time spent generating, lock waits excluded

    def chat(self, messages: list[dict], max_tokens: int | None = None, temperature: float = 0.0,
             seed: int | None = None) -> Generation:
        with self._lock:
            start = time.perf_counter()
            out = self._llama.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                                     temperature=temperature, seed=seed)
            seconds = time.perf_counter() - start
            self.calls += 1
            self.seconds += seconds
        choice, usage = out["choices"][0], out["usage"]
        return Generation(text=choice["message"].get("content") or "", finish_reason=choice.get("finish_reason") or "stop",
                          prompt_tokens=usage["prompt_tokens"], completion_tokens=usage["completion_tokens"],
                          seconds=seconds)


_MODELS: dict[str, LocalModel] = {}
_LOADING = threading.Lock()


def get_model(name: str) -> LocalModel:
    """The process-wide model `name`, loaded on first use (raises ModelUnavailable)."""
    with _LOADING:
        if name not in _MODELS:
            _MODELS[name] = LocalModel(name)
        return _MODELS[name]
