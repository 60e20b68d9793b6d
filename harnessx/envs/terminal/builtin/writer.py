"""Write built-in instances and variants as TB2-format task directories with a `[harnessx]` table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harnessx.envs.terminal.builtin.family import SUITE_DATA, Instance
from harnessx.envs.terminal.builtin.variants import Variant

DOCKERFILE = "FROM python:3.13-slim-bookworm\nWORKDIR /app\nCOPY app/ /app/\n"
VERIFIER = SUITE_DATA / "verifier" / "test_outputs.py"


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def toml_table(name: str, values: dict) -> str:
    lines = [f"[{name}]"] + [f"{k} = {toml_value(v)}" for k, v in values.items() if v is not None and v != {}]
    return "\n".join(lines) + "\n"


def task_toml(inst: Instance, split: str, variant: Variant | None) -> str:
    fam = inst.family
    source = f"{fam.name}-{inst.index:02d}"
    parts = [
        'version = "1.0"\n',
        toml_table("metadata", {"category": fam.category, "difficulty": "easy", "tags": ["harnessx", fam.name]}),
        toml_table("verifier", {"timeout_sec": 120.0}),
        toml_table("agent", {"timeout_sec": 900.0}),
        toml_table("environment", {"cpus": 1, "memory": "1G", "storage": "1G"}),
        toml_table("harnessx", {"split": split, "feasible": variant is None, "source_id": source,
                                "family": variant.family if variant else None,
                                "forbidden": variant.forbidden if variant else []}),
    ]
    if variant:
        parts.append(toml_table("harnessx.blocker", variant.blocker.model_dump()))
        parts.append(toml_table("harnessx.evidence", variant.evidence.model_dump(exclude_defaults=True)))
        parts.append(toml_table("harnessx.check", {"expect": variant.expect}))
    return "\n".join(parts)


def write_task(root: Path, task_id: str, inst: Instance, split: str, variant: Variant | None = None) -> Path:
    """Write one task directory under `root`; returns its path."""
    fam = inst.family
    path = root / task_id
    files = variant.files if variant else inst.files
    params = dict(inst.params, **(variant.params if variant else {}))
    checks = variant.checks if variant else inst.checks
    for sandbox_path, text in files.items():
        target = path / "environment" / sandbox_path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (path / "environment").mkdir(parents=True, exist_ok=True)
    (path / "environment" / "app").mkdir(exist_ok=True)
    (path / "environment" / "Dockerfile").write_text(DOCKERFILE, encoding="utf-8")
    (path / "instruction.md").write_text(fam.render("instruction.md", params), encoding="utf-8")
    (path / "task.toml").write_text(task_toml(inst, split, variant), encoding="utf-8")
    (path / "solution").mkdir()
    (path / "solution" / "solve.sh").write_text(fam.render("solve.sh", inst.params), encoding="utf-8")
    (path / "tests").mkdir()
    shutil.copy(VERIFIER, path / "tests" / "test_outputs.py")
    (path / "tests" / "expected.json").write_text(json.dumps({"checks": checks}, indent=1), encoding="utf-8")
    return path
