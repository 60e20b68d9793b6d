"""`MCPSuite`: `--env mcp --tasks-dir DIR` (a folder holding `mcp.yaml`, or that file).

Construction reads the suite file and the task file, starts the server once to list its tools
(a server that does not start is one line, exit 2), checks every tool a task names exists, builds
each record's feasible task and blocked twins (`twins.py`), and runs FeasiGen's mechanical check of
every generated infeasible twin on the real server. Check results are kept in a small JSON file
(`HARNESSX_MCP_CACHE`, default `~/.cache/harnessx/mcp-checks.json`) keyed by the twin, its source
and the server's fingerprint (its name, version, tools and the files its command names), so later
commands do not replay them; twins that fail are left out and listed in `rejected`.

Splits: a record's `split`, else records without one alternate search / heldout in file order.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
import threading
from pathlib import Path

import harnessx.envs.mcp.twins as twins
from harnessx.envs.mcp.env import MCPEnv, is_read_only
from harnessx.envs.mcp.session import ServerFailure, ServerSession
from harnessx.envs.mcp.spec import ServerSpec, read_suite, read_tasks
from harnessx.errors import InputError, one_of
from harnessx.tasks import Task

CACHE_ENV = "HARNESSX_MCP_CACHE"
AUTO_SPLITS = ("search", "heldout")


def run_sync(coro):
    """Run a coroutine to completion from sync code, also when an event loop already runs here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict = {}

    def target():
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def cache_path() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "harnessx" / "mcp-checks.json")


def fingerprint(spec: ServerSpec, folder: Path, info: dict, tools: list) -> str:
    digest = hashlib.sha256(json.dumps({"info": info, "tools": [t.model_dump(mode="json") for t in tools]},
                                       sort_keys=True).encode())
    for arg in spec.argv() if spec.command is not None else []:
        path = Path(spec.cwd or folder) / arg if not Path(arg).is_absolute() else Path(arg)
        if path.is_file() and path.stat().st_size < 10_000_000:
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def check_arguments(where: str, record, tools: dict) -> None:
    """Every call's arguments against its tool's input schema (JSON Schema), one line for the first misfit."""
    import jsonschema

    for field, call in record.calls():
        schema = tools[call.tool].inputSchema or {}
        error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(call.arguments))
        if error is not None:
            at = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
            raise InputError(where, f"field '{field}.arguments{at}': {error.message}",
                             f"arguments that fit {call.tool}'s input schema")


class MCPSuite:
    name = "mcp"

    def __init__(self, tasks_dir: str | Path | None = None, concurrency: int = 4):
        try:
            import mcp  # noqa: F401 - the official SDK, an extra
        except ImportError:
            raise InputError("--env mcp", "the mcp package is not installed", "pip install -e '.[mcp]'") from None
        if tasks_dir is None:
            raise InputError("--tasks-dir", "--env mcp needs its suite", "a folder holding mcp.yaml (server: and tasks:)")
        config, self.suite_file = read_suite(Path(tasks_dir))
        self.spec, self.folder = config.server, self.suite_file.parent
        tasks_file = Path(config.tasks) if Path(config.tasks).is_absolute() else self.folder / config.tasks
        records = read_tasks(tasks_file)
        tools, info = run_sync(self._probe())
        names = {t.name for t in tools}
        for where, record in records:
            for field, tool in record.tool_fields():
                if tool not in names:
                    raise InputError(where, f"field {field!r}: the server has no tool {tool!r}", one_of(sorted(names)))
            check_arguments(where, record, {t.name: t for t in tools})
        read_only = {t.name for t in tools if is_read_only(t)}
        self.fingerprint = fingerprint(self.spec, self.folder, info, tools)
        self._tasks, self.rejected = self._build(records, read_only, concurrency)

    async def _probe(self) -> tuple[list, dict]:
        session = ServerSession(self.spec, self.folder)
        try:
            return await session.start(), session.info
        except ServerFailure as exc:
            raise InputError(f"{self.suite_file}: server", str(exc), "a server that starts and lists its tools") from None
        finally:
            await session.close()

    def _build(self, records, read_only: set[str], concurrency: int) -> tuple[list[Task], dict[str, str]]:
        out, pairs, auto = [], [], 0
        for where, record in records:
            split = record.split or AUTO_SPLITS[auto % 2]
            auto += record.split is None
            source = twins.feasible(record, where, split, read_only, self.fingerprint)
            out.append(source)
            if record.infeasible:
                pairs.append((twins.masked_twin(source, record, where, read_only), source))
            out += [twins.written(source, record, family, read_only)
                    for family in ("ambiguous", "trap") if getattr(record, family) is not None]
        known = self._known()
        # one key order whether a result was just computed or read back, so task hashes (rollout keys) agree
        results = [json.loads(json.dumps(r, sort_keys=True)) for r in run_sync(twins.check_all(self, pairs, known, concurrency))]
        rejected: dict[str, str] = {}
        for (twin, source), result in zip(pairs, results):
            if result.get("error") is None or result["error"].startswith("control: the expected"):
                known[twins.check_key(twin, source)] = result
            if not result["passed"]:
                rejected[twin.id] = result.get("error") or f"mechanical check: the expected calls without " \
                    f"{twin.metadata['masked_tools']} still reached the goal (reward {result.get('reward')})"
                continue
            meta = {**twin.metadata, twins.TWIN: {**twin.metadata[twins.TWIN], "check": result}}
            out.insert(out.index(source) + 1, twin.model_copy(update={"metadata": meta}))
        self._save(known)
        if rejected:
            print(f"mcp: {len(rejected)} infeasible twin(s) rejected: " +
                  "; ".join(f"{k} ({v})" for k, v in sorted(rejected.items())), file=sys.stderr)
        return out, rejected

    def _known(self) -> dict[str, dict]:
        try:
            return json.loads(cache_path().read_text(encoding="utf-8")).get(self.fingerprint, {})
        except (OSError, ValueError, AttributeError):
            return {}

    def _save(self, known: dict[str, dict]) -> None:
        path = cache_path()
        try:
            data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        except (OSError, ValueError):
            data = {}
        data[self.fingerprint] = known
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            pass  # a cache that cannot be written only costs the replay next time

    def tasks(self, split: str | None = None) -> list[Task]:
        return [t for t in self._tasks if split is None or t.split == split]

    def make_env(self) -> MCPEnv:
        return MCPEnv(self.spec, self.folder)
