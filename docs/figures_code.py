"""Figures that the code itself decides, for `docs/figures.py`: the command table (from the CLI's
registered commands), the run-folder listing (from what a toy search writes), the test suite's
counts (from pytest's collection) and the CLI start-up table (measured by `bench/cli_startup.py`).
Each render function takes the figures' `Workdir` and returns a block's text.

A listed entry must have a line here saying what it is (`RUN_FOLDER`): a file or folder the code
starts to write, or stops writing, makes the figure fail until this table and the docs say so.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A toy search small enough for a test: R0 and one round of one proposal, tracked in MLflow as by default.
TOY_SEARCH = ("search", "--env", "toy", "--rounds", "1", "--proposals", "1", "--name", "<name>")

# What each entry of the folders a search writes holds; keys are paths relative to the search's
# working folder, `<name>` standing for the run's name. A folder ends in "/" and is not walked.
RUN_FOLDER = {
    "mlruns/": "MLflow's store when no --tracking-uri is given (--no-mlflow: none)",
    "mlruns/artifacts/": "each MLflow run's artifacts (the harness YAML, the search's summary)",
    "mlruns/mlflow.db": "the sqlite tracking database: one parent run per search, a child run per candidate",
    "runs/": "every run folder, and the rollout cache they share",
    "runs/cache/": "the shared rollout cache: one record per rollout key, reused by any later command",
    "runs/<name>/": "this search's folder (--name; default <objective>-<env>); refused if it exists, "
                    "unless --resume",
    "runs/<name>/checkpoint.json": "the last finished round, written atomically: what --resume continues from",
    "runs/<name>/claim.json": "the certified claim: selected vs R0, paired, on tasks selection never saw",
    "runs/<name>/config.json": "the search's settings, as resolved (what --resume must match)",
    "runs/<name>/harnesses/": "every candidate, <hash>.yaml",
    "runs/<name>/ledger.jsonl": "one line per proposal, rejected ones included: round, edit, scores, test, decision",
    "runs/<name>/mlflow.json": "the MLflow parent run and its store, so a resume reopens the same run",
    "runs/<name>/optuna.log": "the Optuna journal: one trial per candidate",
    "runs/<name>/r0.yaml": "the starting harness",
    "runs/<name>/rollouts/": "this run's rollout records (<key>.json) and trajectories (<key>.jsonl)",
    "runs/<name>/scores/": "each candidate's per-task scores, <hash>.jsonl (one line per rollout)",
    "runs/<name>/selected.yaml": "the selected harness",
    "runs/<name>/summary.json": "R0 vs selected, the curve, per-round diagnostics, rollouts, wall time",
}


# --- the command table ----------------------------------------------------------------------------
def command_rows() -> list[tuple[str, str]]:
    """(`harnessx NAME [sub|sub]`, the first paragraph of its help) for every command the CLI lists,
    in the order `harnessx --help` lists them; a group names its subcommands."""
    import click
    from typer.main import get_command

    from harnessx.cli.main import app

    root = get_command(app)
    ctx = click.Context(root, info_name="harnessx")
    rows = []
    for name in root.list_commands(ctx):
        cmd = root.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        subs = []
        if hasattr(cmd, "list_commands"):
            sub_ctx = click.Context(cmd, parent=ctx, info_name=name)
            subs = [s for s in cmd.list_commands(sub_ctx) if not cmd.get_command(sub_ctx, s).hidden]
        usage = f"harnessx {name}" + (f" {'|'.join(subs)}" if subs else "")
        rows.append((usage, " ".join((cmd.help or "").split("\n\n")[0].split())))
    return rows


def commands(_work) -> str:
    lines = ["| command | what it does |", "|---|---|"]
    lines += [f"| `{usage.replace('|', chr(92) + '|')}` | {text.replace('|', chr(92) + '|')} |"
              for usage, text in command_rows()]
    return "\n".join(lines)


# --- the run folder -------------------------------------------------------------------------------
def listing(folder: Path, name: str) -> list[str]:
    """The entries a search run in `folder` (as run name `name`) left: keys of RUN_FOLDER, folders not
    walked except `runs/` and `runs/<name>/`."""
    found = []
    for top in sorted(p for p in folder.iterdir() if p.name in ("runs", "mlruns")):
        found.append(f"{top.name}/")
        for entry in sorted(top.iterdir()):
            key = f"{top.name}/{'<name>' if entry.name == name else entry.name}" + ("/" if entry.is_dir() else "")
            found.append(key)
            if key == "runs/<name>/":
                found += [f"runs/<name>/{e.name}" + ("/" if e.is_dir() else "") for e in sorted(entry.iterdir())]
    return found


def render_listing(found: list[str]) -> str:
    undocumented = [key for key in found if key not in RUN_FOLDER]
    if undocumented:
        raise SystemExit(f"figures: a search writes {', '.join(undocumented)}, which docs/figures_code.py's "
                         "RUN_FOLDER does not describe: add a line for each")
    width = max(len(_tree(key)) for key in found)
    return "```\n" + "\n".join(f"{_tree(key):{width}}  {RUN_FOLDER[key]}" for key in found) + "\n```"


def _tree(key: str) -> str:
    depth = key.rstrip("/").count("/")
    return "  " * depth + key.rstrip("/").rsplit("/", 1)[-1] + ("/" if key.endswith("/") else "")


def run_folder(work) -> str:
    folder = work.alone("run-folder")
    folder.run(*(a.replace("<name>", "toy") for a in TOY_SEARCH))
    return render_listing(listing(folder.path, "toy"))


# --- the test suite -------------------------------------------------------------------------------
def collected(*args: str) -> int:
    """How many tests pytest collects with `args` (in this checkout)."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-n", "0",
                           *args], cwd=ROOT, capture_output=True, text=True)
    match = re.search(r"(\d+)(?:/\d+)? tests? collected", proc.stdout)
    if proc.returncode or not match:
        raise SystemExit(f"figures: pytest --collect-only {' '.join(args)} failed:\n{proc.stdout[-2000:]}")
    return int(match.group(1))


def suite_counts(_work) -> str:
    fast, slow = collected(), collected("-m", "slow")
    return (f"{fast:,} tests in the default run and {slow:,} in the slow set ({fast + slow:,} in all; counted "
            "by `pytest --collect-only`)")


# --- CLI start-up ---------------------------------------------------------------------------------
def cli_startup(_work) -> str:
    import os

    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "cli_startup.py")], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode not in (0, 1):  # 1: a command over the bench's limit, which the table shows
        raise SystemExit(f"figures: bench/cli_startup.py failed:\n{proc.stdout}\n{proc.stderr}")
    load = os.getloadavg()[0]
    return (f"```\n{proc.stdout.strip()}\n```\n\n(measured on {os.cpu_count()} cores at load {load:.1f}; "
            "machine-dependent: regenerated by `docs/figures.py cli-startup`, never compared)")
