"""Regenerate the figures the README and the docs quote from seeded simulated commands, so they stay true.

README.md and the pages under docs/ hold marked blocks, `<!-- figure:NAME -->` … `<!-- /figure:NAME -->`
(inline inside a sentence or around whole lines). A NAME may stand in several files, at most once in
each. Each NAME below re-runs the command it quotes, on the simulated agent in a scratch directory,
and renders the block's text from the JSON (or output) that command wrote, with the same cell
formatter every table uses (`harnessx.report.cells`).

    python docs/figures.py                  # re-run every figure and rewrite its blocks
    python docs/figures.py demo plan        # only these
    python docs/figures.py --check plan toy-eval   # exit 1 if a deterministic block differs
    python docs/figures.py --list

The simulator is seeded per (profile, task, seed), so deterministic blocks reproduce exactly on any
machine; timing blocks (wall time, throughput) are regenerated but never compared (`--check` skips
them and says so). The figures from `bench/*` commands (search worlds, null test, efficiency,
overhead, scaling, faults) are not produced here: they take minutes to hours or need a loaded-down
machine to mean anything; the docs say which is which. Those whose measurement is committed (the
terminal power outcomes, `bench/terminal_power.json`) are recomputed here from that file
(docs/figures_search.py) and checked like any deterministic block.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
def doc_files(root: Path = ROOT) -> list[Path]:
    """The files that may hold figure blocks: the README and every Markdown page of the docs site."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "docs"))

import figures_benchmarks as bench_figures  # noqa: E402
import figures_scoring as scoring_figures  # noqa: E402
import figures_search as search_figures  # noqa: E402
import figures_claim as claim_figures  # noqa: E402
import figures_code as code_figures  # noqa: E402
from harnessx.report.cells import rate_cell  # noqa: E402
from harnessx.report.tables import compare_tables  # noqa: E402


@dataclass(frozen=True)
class FigureSpec:
    name: str
    command: str            # what the docs quote; shown by --list
    deterministic: bool     # False: timing, regenerated but never compared
    inline: bool            # True: the block sits inside a sentence (no newlines around it)
    render: Callable[["Workdir"], str]


class Workdir:
    """A scratch directory where the figures' commands run (their `runs/` and `mlruns/` land here);
    each command runs at most once per invocation, however many figures read it."""

    def __init__(self, path: Path):
        self.path = path
        self.walls: dict[str, float] = {}
        self._done: dict[str, str] = {}

    def run(self, *args: str, cli: bool = True) -> str:
        key = " ".join(args)
        if key not in self._done:
            cmd = [sys.executable, "-m", "harnessx.cli.main", *args] if cli else [sys.executable, *args]
            env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "NO_COLOR": "1"}
            start = time.perf_counter()
            proc = subprocess.run(cmd, cwd=self.path, env=env, capture_output=True, text=True)
            self.walls[key] = time.perf_counter() - start
            if proc.returncode:
                raise SystemExit(f"figures: `{key}` failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
            self._done[key] = proc.stdout
        return self._done[key]

    def alone(self, name: str) -> "Workdir":
        """A fresh subfolder for a command whose output reads what earlier commands left (the plan
        estimates discordance from rollouts it finds), so its figure is what a user gets in an empty folder."""
        path = self.path / name
        path.mkdir(exist_ok=True)
        return Workdir(path)

    def json(self, pattern: str) -> dict:
        found = sorted(self.path.glob(pattern))
        if len(found) != 1:
            raise SystemExit(f"figures: expected one file matching {pattern} under the work dir, found {len(found)}")
        return json.loads(found[0].read_text(encoding="utf-8"))


# --- the commands ---------------------------------------------------------------------------------
MAIN = ("search", "--objective", "joint")
DEMO = ("search", "--objective", "joint", "--rounds", "3", "--proposals", "2", "--name", "demo", "--accept",
        "greedy", "--no-mlflow")
DEMO_COMPARE = ("compare", "runs/demo", "--split", "heldout", "--epochs", "2")
BELIEF = ("probe", "belief", "runs/demo")
CHALLENGE = ("probe", "challenge", "runs/demo", "--replicates", "6")
PLAN = ("plan", "--env", "retail", "--accept", "paired", "--effect", "0.05", "--max-rollouts", "2000")
TOY = ("eval", "--env", "toy", "--harness", "A1")
MCP_SEARCH = ("search", "--env", "mcp", "--tasks-dir", str(ROOT / "examples" / "mcp-inventory"), "--rounds", "4",
              "--proposals", "3", "--certify-epochs", "3", "--no-mlflow", "--name", "mcp-demo")


def main_search(w: Workdir) -> str:
    w.run(*MAIN)
    s = w.json("runs/joint-retail/summary.json")
    r0, sel = s["r0"]["scorecard"]["joint"], s["selected"]["scorecard"]["joint"]
    return (f"{s['rollouts']:,} rollouts; R0 joint {rate_cell(r0)} → selected (round {s['selected']['round']}) "
            f"{rate_cell(sel)} on the search split")


def main_search_wall(w: Workdir) -> str:
    w.run(*MAIN)
    s = w.json("runs/joint-retail/summary.json")
    return (f"measured {s['wall_s']:.1f} s ({w.walls[' '.join(MAIN)]:.0f} s for the whole command) on "
            f"{os.cpu_count()} cores at load {os.getloadavg()[0]:.1f} (machine-dependent: regenerated by "
            "`docs/figures.py`, never compared)")


def _row(table, label: str) -> str:
    cells = next(r for r in table.rows if r[0] == label)
    return "| " + " | ".join(cells) + " |"


def demo(w: Workdir) -> str:
    w.run(*DEMO)
    w.run(*DEMO_COMPARE)
    data = w.json("runs/demo/compare/compare-heldout-*.json")
    tables = compare_tables(data)
    scores, diffs, transfer = (next(t for t in tables if key in t.title) for key in ("tasks,", "paired", "Transfer"))
    lines = [scores.title, "| " + " | ".join(scores.headers) + " |",
             *(_row(scores, m) for m in ("Strict SA", "Solve", "False abstention", "Joint")),
             diffs.title, *(_row(diffs, m) for m in ("Strict SA", "Joint"))]
    row = next(r for r in transfer.rows if r[0].endswith(":selected") and r[2] == "Joint")
    lines.append(f"Transfer: {row[0]} Joint  search split (selection data) {row[3]} → held out {row[4]}  (Δ {row[5]})")
    return "```\n" + "\n".join(lines) + "\n```"


def mcp_tasks(w: Workdir) -> str:
    out = w.run("tasks", "list", "--env", "mcp", "--tasks-dir", MCP_SEARCH[4])
    counts: dict[tuple[str, str], int] = {}
    for split, kind, n in re.findall(r"^(search|heldout|independent)\s+(\w+)\s+(\d+)$", out, re.M):
        counts[split, kind] = int(n)
    kinds = {k: sum(n for (_, kind), n in counts.items() if kind == k) for k in ("feasible", "infeasible", "trap", "ambiguous")}
    splits = " / ".join(str(counts.get((split, "feasible"), 0)) for split in ("search", "heldout"))
    return (f"{kinds['feasible']} tasks (search / heldout {splits}), with {kinds['infeasible']} generated infeasible "
            f"twins, {kinds['trap']} traps and {kinds['ambiguous']} ambiguous twins: {sum(counts.values())} tasks")


def mcp_example(w: Workdir) -> str:
    from harnessx.search.certify import claim_line

    w.run(*MCP_SEARCH)
    s, claim = w.json("runs/mcp-demo/summary.json"), w.json("runs/mcp-demo/claim.json")
    r0, sel = s["r0"]["scorecard"]["joint"], s["selected"]["scorecard"]["joint"]
    return (f"```\nsearch split (selection data): R0 joint {rate_cell(r0)} -> selected (round "
            f"{s['selected']['round']}) {rate_cell(sel)}\n{claim_line(claim)}\n```")


def demo_probes(w: Workdir) -> str:
    w.run(*DEMO)
    w.run(*BELIEF)
    w.run(*CHALLENGE)
    b = w.json("runs/demo/probes/belief/belief-heldout.json")
    c = w.json("runs/demo/probes/challenge/challenge-heldout.json")
    from harnessx.report.cells import mean_sd_cell, metric_cell

    def belief(label: str, h: dict) -> str:
        return (f"{label} n_A/n_C {h['n_A']}/{h['n_C']}, AUROC {metric_cell(h['auroc'])}, Brier "
                f"{metric_cell(h['brier'])}, ECE10 {metric_cell(h['ece10'])}, invalid reports {h['n_invalid']}/"
                f"{h['n_reports']}")
    # the challenge probe runs R0 and the selected harness; the figure quotes the selected one's numbers
    label, h = next((lb, x) for lb, x in c["harnesses"].items() if lb.endswith(":selected"))
    s, pooled = h["summary"], h.get("pooled", {})
    cell = lambda t: mean_sd_cell(s[t]) + (f", pooled {rate_cell(pooled[t])}" if t in pooled else "")  # noqa: E731
    return ("Belief probe (heldout split): " + "; ".join(belief(lb, x) for lb, x in b["harnesses"].items())
            + f". Challenge probe on {label} ({h['contrast_name']}, {len(h['seeds'])} replicates, "
            f"{h['scorable_blocked']} scorable blocked rollouts; mean ± SD over replicates [t 95% CI]): "
            f"P(+|+) {cell('p_pos_given_pos')}; P(+|−) {cell('p_pos_given_neg')}; P(−|+) {cell('p_neg_given_pos')}; "
            f"{h['contrast_name']} {mean_sd_cell(s['contrast'], -100.0, 100.0)} pp; new false abstentions on "
            f"feasible tasks {rate_cell(h['new_false_abstention'])}.")


def plan(w: Workdir) -> str:
    out = " ".join(w.alone("plan").run(*PLAN).split())
    grab = lambda pattern: re.search(pattern, out).group(1)  # noqa: E731
    rounds, proposals, per_round, total = (grab(p) for p in (r"at least (\d+) rounds", r"rounds of (\d+) proposals",
                                                              r"at the rule's most \((\d+);", r"up to (\d+) rollouts"))
    mde, power = grab(r"minimum detectable effect (\S+) at power"), grab(r"per round: (\S+)")
    seeds = grab(r"about (\d+) seeds per task \(--epochs\)")
    claim_n, claim_mde = grab(r"claim: selected vs R0 on (\d+) heldout"), grab(r"claim: .*?minimum detectable effect (\S+)")
    claim_power = grab(r"power to certify \S+: (\S+)")
    return (f"the budget sets the rounds (no `--rounds`): R0, then rounds of {proposals} proposals while what is "
            f"left pays for one at its most ({per_round} rollouts), at least {rounds} (up to {total} rollouts), "
            f"MDE {mde} at power 0.80, "
            f"power {power} to detect +0.05, and a warning that about {seeds} seeds per task would be needed; "
            f"the claim on {claim_n} held-out tasks: MDE {claim_mde}, power {claim_power} to certify +0.05")


def toy_eval(w: Workdir) -> str:
    w.run(*TOY)
    data = w.json("runs/eval-*/eval-search-*.json")
    [table, *_] = compare_tables(data)
    cell = lambda label: next(r for r in table.rows if r[0] == label)[1]
    return (f"search split (selection data; toy has no held-out tasks), A1: strict SA {cell('Strict SA')}, "
            f"solve {cell('Solve')}, joint {cell('Joint')}")


def a1_calibration(w: Workdir) -> str:
    out = w.run("-c", A1_SCRIPT, cli=False)
    m0, sa = json.loads(out.strip().splitlines()[-1])
    return f"measured M0 {rate_cell(m0)} and strict SA {rate_cell(sa)} over 3 epochs"


A1_SCRIPT = """
import asyncio, json
from harnessx.agent.runner import Runner
from harnessx.envs.registry import get_suite
from harnessx.evaluation import evaluate
from harnessx.harness.presets import load_preset
from harnessx.models.client import ModelClient
suite = get_suite("terminal")
blocked = [t for t in suite.tasks("search") if not t.feasible]
ev = asyncio.run(evaluate(Runner(suite, ModelClient("sim/baseline"), cache=None, concurrency=8),
                          load_preset("A1"), blocked, [0, 1, 2]))
print(json.dumps([ev.scorecard.m0.to_dict(), ev.scorecard.strict_sa.to_dict()]))
"""


def sim_throughput(w: Workdir) -> str:
    def rate(*args: str) -> tuple[str, str]:
        out = w.run(str(ROOT / "bench" / "sim_throughput.py"), *args, cli=False)
        return re.search(r"\((\S+) per rollout\)", out).group(1), re.search(r"throughput: (\S+) rollouts/s", out).group(1)
    (calls, one), (_, two), (_, toy) = rate(), rate("--workers", "2"), rate("--env", "toy")
    return (f"retail ({calls} calls per rollout): {float(one):.0f}/s with one worker, {float(two):.0f}/s with two; "
            f"toy {float(toy):.0f}/s (load {os.getloadavg()[0]:.1f}; machine-dependent, not compared)")


FIGURES = {f.name: f for f in [
    FigureSpec("main-search", "harnessx search --objective joint", True, True, main_search),
    FigureSpec("main-search-wall", "harnessx search --objective joint (its wall time)", False, True, main_search_wall),
    FigureSpec("demo", " && ".join("harnessx " + " ".join(c) for c in (DEMO, DEMO_COMPARE)), True, False, demo),
    FigureSpec("demo-probes", " && ".join("harnessx " + " ".join(c) for c in (BELIEF, CHALLENGE)), True, True,
               demo_probes),
    FigureSpec("plan", "harnessx " + " ".join(PLAN), True, True, plan),
    FigureSpec("mcp-tasks", "harnessx tasks list --env mcp --tasks-dir examples/mcp-inventory", True, True, mcp_tasks),
    FigureSpec("mcp-example", "harnessx search --env mcp --tasks-dir examples/mcp-inventory --rounds 4 --proposals 3 "
               "--certify-epochs 3 --no-mlflow --name mcp-demo", True, False, mcp_example),
    FigureSpec("toy-eval", "harnessx " + " ".join(TOY), True, True, toy_eval),
    *[FigureSpec(f"claim-{part}", "harnessx " + " ".join(cmd), True, False, render) for part, cmd, render in (
        ("plan", claim_figures.PLAN, claim_figures.claim_plan),
        ("search", claim_figures.SEARCH, claim_figures.claim_search),
        ("export", claim_figures.EXPORT, claim_figures.claim_export),
        ("compare", claim_figures.COMPARE, claim_figures.claim_compare),
        ("greedy", claim_figures.GREEDY, claim_figures.claim_greedy))],
    FigureSpec("a1-calibration", "A1 on the terminal search split's blocked tasks, sim/baseline, 3 epochs", True, True,
               a1_calibration),
    FigureSpec("feasigen-retail", " && ".join("harnessx " + " ".join(c) for c in
                                              (bench_figures.FG_BUILD, bench_figures.FG_EVAL, bench_figures.FG_REPORT)),
               True, False, bench_figures.feasigen_retail),
    FigureSpec("kapro-baseline", " && ".join("harnessx " + " ".join(c) for c in
                                             (bench_figures.KAPRO_EVAL, bench_figures.KAPRO_REPORT)),
               True, False, bench_figures.kapro_baseline),
    FigureSpec("cf-profiles", "harnessx " + " ".join(bench_figures.cf_eval("<profile>")) + " && harnessx cf report "
               "runs/cf-<profile>, for " + ", ".join(bench_figures.CF_PROFILES), True, False, bench_figures.cf_profiles),
    FigureSpec("acting_generators", scoring_figures.COMMAND, True, False, scoring_figures.acting_generators),
    FigureSpec("terminal-power", search_figures.POWER_COMMAND + " (from the committed measurement)", True, False,
               search_figures.terminal_power),
    FigureSpec("terminal-search", search_figures.SEARCH_COMMAND + " (the committed results.json)", True, False,
               search_figures.terminal_search),
    FigureSpec("worlds-design", search_figures.WORLDS_DESIGN_COMMAND + " (bench/worlds.json)", True, False,
               search_figures.worlds_design),
    FigureSpec("worlds-budget", search_figures.WORLDS_BUDGET_COMMAND + " (bench/worlds.json)", True, False,
               search_figures.worlds_budget),
    FigureSpec("worlds-before", search_figures.WORLDS_BEFORE_COMMAND + " (bench/worlds.json)", True, False,
               search_figures.worlds_before),
    FigureSpec("null-before", search_figures.NULL_BEFORE_COMMAND + " (bench/null_before_tie.json)", True, False,
               search_figures.null_before),
    FigureSpec("worlds-report", search_figures.WORLDS_REPORT_COMMAND + " (bench/worlds.json)", True, False,
               search_figures.worlds_report),
    FigureSpec("null-test", search_figures.NULL_COMMAND + " (bench/null_default.json)", True, False,
               search_figures.null_test),
    FigureSpec("sim-throughput", "python bench/sim_throughput.py [--workers 2 | --env toy]", False, True,
               sim_throughput),
    # decided by the code itself (docs/figures_code.py): cheap, and checked by a test of the default run
    FigureSpec("commands", "the commands `harnessx --help` lists, with their help", True, False, code_figures.commands),
    FigureSpec("run-folder", "harnessx " + " ".join(code_figures.TOY_SEARCH) + " (the folders it writes)", True, False,
               code_figures.run_folder),
    FigureSpec("test-counts", "python -m pytest --collect-only -q [-m slow]", True, True, code_figures.suite_counts),
    FigureSpec("cli-startup", "python bench/cli_startup.py", False, False, code_figures.cli_startup),
]}


# --- figure blocks --------------------------------------------------------------------------------
def block_pattern(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- figure:{re.escape(name)} -->)(.*?)(<!-- /figure:{re.escape(name)} -->)", re.S)


def current(text: str, name: str, where: str = "README.md") -> str:
    """The text of the one block NAME in one file's text (an error unless there is exactly one)."""
    found = block_pattern(name).findall(text)
    if len(found) != 1:
        raise SystemExit(f"figures: {where} has {len(found)} blocks <!-- figure:{name} --> (expected one)")
    return found[0][1]


def holders(texts: dict[Path, str], name: str) -> list[Path]:
    """The files that hold block NAME: at least one, and at most one block in each."""
    found = [path for path, text in texts.items() if block_pattern(name).search(text)]
    if not found:
        raise SystemExit(f"figures: no file has a block <!-- figure:{name} --> "
                         f"(looked in {', '.join(p.name for p in texts)})")
    for path in found:
        current(texts[path], name, path.name)
    return found


def body(spec: FigureSpec, rendered: str) -> str:
    return rendered if spec.inline else f"\n{rendered}\n"


def write_blocks(rendered: dict[str, str], where: dict[str, list[Path]]) -> None:
    """Put each rendered block into the files that hold it, as they are now: the figures take minutes,
    and text edited meanwhile outside the blocks is kept, not overwritten with what was read at the start."""
    changed: dict[Path, str] = {}
    for path in sorted({p for name in rendered for p in where[name]}):
        before = text = path.read_text(encoding="utf-8")
        for name, new in rendered.items():
            if path in where[name]:
                current(text, name, path.name)  # the block must still be there once (else nothing is written)
                text = block_pattern(name).sub(lambda m, new=new: m.group(1) + new + m.group(3), text, count=1)
        if text != before:
            changed[path] = text
    for path, text in changed.items():
        path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"figures (default: all): {', '.join(FIGURES)}")
    parser.add_argument("--check", action="store_true", help="compare instead of rewriting; exit 1 on a difference")
    parser.add_argument("--list", action="store_true", help="list the figures and their commands")
    parser.add_argument("--file", "--readme", dest="files", type=Path, action="append", default=None,
                        help="a file holding figure blocks (repeatable; default: README.md and docs/**/*.md)")
    parser.add_argument("--work-dir", type=Path, default=None, help="scratch dir (default: a new temporary one)")
    args = parser.parse_args(argv)
    if args.list:
        for f in FIGURES.values():
            print(f"{f.name:18} {'deterministic' if f.deterministic else 'timing (not compared)':22} {f.command}")
        return 0
    unknown = [n for n in args.names if n not in FIGURES]
    if unknown:
        parser.error(f"unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    specs = [FIGURES[n] for n in args.names or FIGURES]
    texts = {path: path.read_text(encoding="utf-8") for path in args.files or doc_files()}
    where = {spec.name: holders(texts, spec.name) for spec in specs}  # every block found before anything runs
    rendered: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="harnessx-figures-") as tmp:
        work = Workdir(args.work_dir or Path(tmp))
        work.path.mkdir(parents=True, exist_ok=True)
        differ = []
        for spec in specs:
            if args.check and not spec.deterministic:
                print(f"{spec.name}: timing figure, not compared")
                continue
            new = rendered[spec.name] = body(spec, spec.render(work))
            for path in where[spec.name]:
                old = current(texts[path], spec.name, path.name)
                if args.check:
                    if new != old:
                        differ.append(spec.name)
                        print(f"{spec.name}: {path.name} block differs from `{spec.command}`:")
                        print("\n".join(difflib.unified_diff(old.splitlines(), new.splitlines(), path.name, "now",
                                                             lineterm="")))
                    else:
                        print(f"{spec.name}: matches in {path.name}")
                else:
                    print(f"{spec.name}: {'unchanged' if new == old else 'rewritten'} in {path.name}")
    if not args.check:
        write_blocks(rendered, where)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
