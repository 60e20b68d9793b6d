"""One connection to an MCP server, owned by one task of its own (the SDK's streams and cancel scopes
must be entered and left in the same task, while an environment's methods may be awaited from any).

`ServerSession.start()` starts the server (a stdio command: a fresh process per session; an HTTP URL:
a new client session) and lists its tools; `call(name, arguments)` runs one tool; `close()` ends it.
Start-up is bounded by the server spec's `start_timeout`, each call by its `timeout`: a server that does not start, dies or hangs
raises `ServerFailure` naming the server, what it was asked and its last stderr line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

from harnessx.envs.mcp.spec import ServerSpec
from harnessx.errors import EnvironmentFailure


class ServerFailure(EnvironmentFailure):
    """The MCP server did not start, died or did not answer: the episode is excluded, named."""


class ServerSession:
    def __init__(self, spec: ServerSpec, folder: Path):
        self.spec, self.folder = spec, folder
        self._requests: asyncio.Queue = asyncio.Queue()
        self._ready: asyncio.Future | None = None
        self._task: asyncio.Task | None = None
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self.info: dict[str, str] = {}

    def _stderr_tail(self) -> str:
        with contextlib.suppress(Exception):
            self._stderr.seek(0)
            lines = [line for line in self._stderr.read().splitlines() if line.strip()]
            return f"; its stderr ends: {lines[-1][:300]}" if lines else ""
        return ""

    def failure(self, what: str, exc: BaseException | None = None) -> ServerFailure:
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # the SDK's task groups wrap the cause
            exc = exc.exceptions[0]
        cause = f": {type(exc).__name__}: {exc}" if exc is not None and str(exc) else (
            f": {type(exc).__name__}" if exc is not None else "")
        return ServerFailure(f"MCP server `{self.spec.describe()}` {what}{cause}{self._stderr_tail()}"[:1500])

    def _transport(self):
        if self.spec.url is not None:  # the calls' bounds are ours (`_wait`), not the HTTP client's
            try:
                from mcp.client.streamable_http import streamable_http_client
            except ImportError:  # SDKs before the rename
                from mcp.client.streamable_http import streamablehttp_client as streamable_http_client
            return streamable_http_client(self.spec.url)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        argv = self.spec.argv()
        cwd = Path(self.spec.cwd) if self.spec.cwd else self.folder
        params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(cwd if cwd.is_absolute() else self.folder / cwd),
                                       env={**os.environ, **self.spec.env})
        return stdio_client(params, errlog=self._stderr)

    async def _serve(self) -> None:
        from mcp import ClientSession

        assert self._ready is not None
        try:
            async with self._transport() as streams, ClientSession(streams[0], streams[1]) as session:
                init = await session.initialize()
                self.info = {"name": init.serverInfo.name, "version": init.serverInfo.version}
                tools = (await session.list_tools()).tools
                self._ready.set_result(tools)
                while (request := await self._requests.get()) is not None:
                    name, arguments, answer = request
                    try:
                        result = await session.call_tool(name, arguments)
                    except Exception as exc:  # noqa: BLE001 - handed to the caller, who names it
                        if not answer.done():
                            answer.set_exception(exc)
                        continue
                    if not answer.done():
                        answer.set_result(result)
        except BaseException as exc:  # noqa: BLE001 - the server's end, reported to whoever waits
            if not self._ready.done():
                self._ready.set_exception(exc)
            while not self._requests.empty():
                request = self._requests.get_nowait()
                if request is not None and not request[2].done():
                    request[2].set_exception(exc)
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise

    async def _wait(self, future: asyncio.Future, what: str, timeout: float):
        assert self._task is not None
        try:
            async with asyncio.timeout(timeout):
                done, _ = await asyncio.wait({future, self._task}, return_when=asyncio.FIRST_COMPLETED)
        except TimeoutError:
            raise self.failure(f"did not answer {what} within {timeout:g}s") from None
        if future in done:
            if (exc := future.exception()) is not None:
                raise self.failure(f"failed on {what}", exc) from None  # the message names the cause
            return future.result()
        raise self.failure(f"exited during {what}")

    async def start(self) -> list[Any]:
        """Start the server and list its tools (the SDK's `Tool` objects)."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._task = asyncio.create_task(self._serve())
        return await self._wait(self._ready, "start-up (initialize, tools/list)", self.spec.start_timeout)

    async def call(self, name: str, arguments: dict[str, Any]):
        """One `tools/call`; the SDK's `CallToolResult` (a tool's own error is `isError`, not raised)."""
        if self._task is None or self._task.done():
            raise self.failure(f"is not running (tools/call {name})")
        answer = asyncio.get_running_loop().create_future()
        await self._requests.put((name, arguments, answer))
        return await self._wait(answer, f"tools/call {name}", self.spec.timeout)

    async def close(self) -> None:
        """End the session (the stdio server process with it); never raises."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            await self._requests.put(None)
            try:
                async with asyncio.timeout(self.spec.timeout):
                    await asyncio.wait({task})
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._stderr.close()
