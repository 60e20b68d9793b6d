"""Read a search run directory (`runs/<name>/`) and turn CLI arguments into contenders.

A run directory holds `config.json`, `r0.yaml`, `selected.yaml`, `ledger.jsonl` and `summary.json`.
An argument that is a run directory stands for its selected harness and, unless `include_r0` is off,
its R0 (listed first, so paired differences read "selected − R0"); a selected harness identical to
R0 appears once. Any other argument is a harness file or a preset name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harnessx.errors import InputError
from harnessx.harness.model import Harness
from harnessx.harness.presets import resolve_harness
from harnessx.io_read import read_json, read_jsonl
from harnessx.search.rundir import LEDGER_RECOVERY, ledger_row
from harnessx.stored import RESUME, check_finished, check_seal


@dataclass(frozen=True)
class RunDir:
    path: Path
    config: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    ledger: tuple[dict, ...] = ()

    @property
    def name(self) -> str:
        return self.path.name

    def harness(self, role: str) -> Harness:
        return Harness.load(self.path / f"{role}.yaml")

    def search_scorecard(self, role: str, harness_hash: str) -> dict | None:
        """The search-split scorecard the search recorded for this harness (summary, else ledger)."""
        entry = self.summary.get(role) or self.summary.get(role.upper()) or {}
        card = entry.get("scorecard", entry) if isinstance(entry, dict) else {}
        if isinstance(card, dict) and "strict_sa" in card:
            return card
        rows = [r for r in self.ledger if r.get("hash") == harness_hash and isinstance(r.get("scorecard"), dict)]
        return rows[-1]["scorecard"] if rows else None


def is_run_dir(path: str | Path) -> bool:
    return (Path(path) / "selected.yaml").is_file()


RUN_FILE = "a file written by harnessx search; restore it or re-run the search"


def _json(path: Path) -> dict:
    if not path.is_file():
        return {}
    data = read_json(path, f"a JSON object ({RUN_FILE})")
    if not isinstance(data, dict):
        raise InputError(str(path), f"top level is {type(data).__name__}", f"a JSON object ({RUN_FILE})")
    return data


def load_run(path: str | Path) -> RunDir:
    path = Path(path)
    if not is_run_dir(path):
        raise InputError(str(path), "not a search run directory (no selected.yaml)", "runs/<name>")
    ledger_path = path / "ledger.jsonl"
    # a torn last line (a kill mid-append) is dropped, as `search --resume` drops it
    ledger = tuple(read_jsonl(ledger_path, LEDGER_RECOVERY, row_check=ledger_row, kind="ledger line").rows
                   ) if ledger_path.is_file() else ()
    summary = check_seal(_json(path / "summary.json"), path / "summary.json", RESUME)
    return RunDir(path, _json(path / "config.json"), summary, ledger)


def check_selection(run: RunDir, selected: Harness) -> None:
    """selected.yaml must be the harness the search's summary names as its selection."""
    recorded = (run.summary.get("selected") or {}).get("hash") if isinstance(run.summary, dict) else None
    if recorded and recorded != selected.hash:
        raise InputError(str(run.path / "selected.yaml"), f"holds harness {selected.hash}, but summary.json names "
                         f"{recorded} as the search's selection", f"the file as written: restore it, or {RESUME}")


@dataclass(frozen=True)
class Contender:
    label: str
    harness: Harness
    role: str                 # "r0" / "selected" (from a run), "file" or "preset"
    run: RunDir | None = None

    def to_dict(self) -> dict:
        return {"label": self.label, "hash": self.harness.hash, "name": self.harness.name, "role": self.role,
                "run": str(self.run.path) if self.run else None}


def resolve_contenders(specs: list[str], include_r0: bool = True) -> list[Contender]:
    out: list[Contender] = []
    for spec in specs:
        if is_run_dir(spec):
            check_finished(spec)  # after an interrupted --resume, selected.yaml is an earlier finish's
            run = load_run(spec)
            r0, selected = run.harness("r0"), run.harness("selected")
            check_selection(run, selected)
            if include_r0 and r0.hash != selected.hash:
                out.append(Contender(f"{run.name}:R0", r0, "r0", run))
            same = " (=R0)" if r0.hash == selected.hash else ""
            out.append(Contender(f"{run.name}:selected{same}", selected, "selected", run))
        else:
            harness = resolve_harness(spec)
            role = "file" if Path(spec).is_file() else "preset"
            out.append(Contender(Path(spec).stem if role == "file" else spec, harness, role))
    labels = [c.label for c in out]
    if len(set(labels)) != len(labels):
        raise InputError("harnesses", f"the same label appears twice: {labels}", "distinct runs or files")
    return out


def run_setting(contenders: list[Contender], key: str) -> str | None:
    """A config value (env, model, api_base) the runs among the contenders agree on, if any."""
    values = {c.run.config.get(key) for c in contenders if c.run and c.run.config.get(key)}
    if len(values) > 1:
        raise InputError(f"--{key.replace('_', '-')}", f"the runs disagree on {key}: {sorted(values)}",
                         f"pass --{key.replace('_', '-')} explicitly")
    return values.pop() if values else None
