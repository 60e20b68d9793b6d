"""The search benchmarks' figures that are measured once and committed (their runs take an hour).

`bench/terminal_power.py measure` writes every terminal outcome it measured to
`bench/terminal_power.json`; the renderers here recompute the page's figures from that file with the
bench's own (seeded) analysis, so `docs/figures.py --check` compares them like any deterministic
block, without re-running the hour of rollouts. `bench/terminal_search.json` holds the
`bench/search_efficiency.py` results the page quotes for terminal (the `results.json` it wrote).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

POWER_FILE = ROOT / "bench" / "terminal_power.json"
SEARCH_FILE = ROOT / "bench" / "terminal_search.json"
SIZES = [20, 107]  # the bench's former terminal search split and the full one
POWER_COMMAND = "python bench/terminal_power.py report bench/terminal_power.json --sizes 20,107"


def _ci(g) -> str:
    mean, lo, hi, n = g
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def terminal_power(w=None) -> str:
    """One row per world: R0, how many single edits help, the best one's gains and the default's
    chance to move to it on 20 and on 107 search tasks."""
    import terminal_power as bench

    summary = bench.report(json.loads(POWER_FILE.read_text(encoding="utf-8"))["records"], SIZES, sims=400)
    lines = ["| world | R0 joint (search / held-out) | single edits with CI above 0 (search) | best single edit | "
             "Δ joint search [95% CI] | Δ joint held-out [95% CI] | Δ SA / Δ solve (search) | best pair: Δ joint search | "
             "default moves to the best edit, 20 / 107 tasks |", "|" + "---|" * 9]
    for world in summary["worlds"]:
        gains, best = world["gains"], world["best"]
        singles = [k for k in gains if " + " not in k]
        helping = sum(gains[k]["search"]["joint"][1] > 0 for k in singles)
        g = gains[best]
        pair = world["best_pair"]
        power = " / ".join(f"{world['power'][str(n)]['moved']:.2f}" for n in SIZES)
        lines.append(f"| {world['world']} | {world['r0']['search']:.3f} / {world['r0']['heldout']:.3f} | "
                     f"{helping} of {len(singles)} | `{best}` | {_ci(g['search']['joint'])} | {_ci(g['heldout']['joint'])} | "
                     f"{g['search']['strict_sa'][0]:+.3f} / {g['search']['solve'][0]:+.3f} | "
                     + (f"`{pair}` {_ci(gains[pair]['search']['joint'])}" if pair else
                        "none measured (the three best edits change one library)") + f" | {power} |")
    first = summary["worlds"][0]
    lines.append("")
    lines.append(f"n = {first['tasks']['search']} search and {first['tasks']['heldout']} held-out tasks × "
                 f"{first['epochs']} epoch(s) per harness (common random numbers); the move probability is over "
                 f"{summary['sims']} simulated rounds per size.")
    return "\n".join(lines)


SEARCH_COMMAND = ("python bench/search_efficiency.py --envs terminal --worlds baseline,harmful --rho 0.5 --seeds 2 "
                  "--strategies default --gt-epochs 1 --terminal-heldout-tasks 64 --terminal-tasks 128")


# the results.json of each run (bench/terminal_search.json's keys), and how each row names its rule
TERMINAL_RUNS = {
    # the shipped default (the gate's tie-break, tie_tasks 8): 20 and all search tasks, all for 12 rounds,
    # all with two seeds per task (bench --epochs 2)
    "tie_before": "shipped", "tie_after": "shipped", "tie_rounds12": "shipped, 12 rounds",
    "tie_epochs2": "shipped, --epochs 2",
    # the default before the tie-break and before #48 (promote, move p < 0.3, no gate), kept to compare
    "before": "no tie-break", "after": "no tie-break", "prior_before": "pre-#48", "prior_after": "pre-#48",
    # before the tie-break: the 20-task cut's seeds 2-3, seeds 0-3 with confirm=unseen, two seeds per task
    "before_seeds23": "no tie-break", "unseen_before": "no tie-break, confirm=unseen",
    "epochs2_after": "no tie-break, --epochs 2",
}


def terminal_search(w=None) -> str:
    """The default's searches on 20 and on all 107 terminal search tasks, judged on the full held-out
    split: held-out ground-truth gain per seed, and its share of the best measured edit's gain there."""
    import terminal_power as bench

    runs = json.loads(SEARCH_FILE.read_text(encoding="utf-8"))
    measured = {r["world"]: bench.Outcomes.of(r) for r in json.loads(POWER_FILE.read_text(encoding="utf-8"))["records"]}
    lines = ["| default | world | search tasks | rollouts (mean) | held-out GT gain per seed | mean | share of the best "
             "single edit's held-out gain | share of the best measured harness's |", "|" + "---|" * 8]
    for label, rule in TERMINAL_RUNS.items():
        for group in runs.get(label, {}).get("groups", []):
            data = measured[group["profile"]]
            best = max(data.edits(), key=lambda k: (data.mean_gain(k, "search"), k))
            top = max(data.edits() + data.pairs, key=lambda k: (data.mean_gain(k, "search"), k))
            s = group["strategies"]["default"]
            gains, mean = s["per_seed"]["gain_heldout"], s["mean"]["gain_heldout"]
            n = min(group["sizes"]["search"], len(data.feasible["search"]))  # a size past a stratum takes all of it
            lines.append(f"| {rule} | {group['profile']} | {n} | {s['mean']['rollouts']:.0f} | "
                         f"{', '.join(f'{g:+.3f}' for g in gains)} (seeds {', '.join(map(str, group['seeds']))}) | "
                         f"{mean:+.3f} | {mean / data.mean_gain(best, 'heldout'):.2f} of {data.mean_gain(best, 'heldout'):+.3f} | "
                         f"{mean / data.mean_gain(top, 'heldout'):.2f} of {data.mean_gain(top, 'heldout'):+.3f} |")
    return "\n".join(lines)


WORLDS_FILE = ROOT / "bench" / "worlds.json"  # the world-distribution runs: design draws and report draws
WORLDS_REPORT_COMMAND = ("python bench/search_efficiency.py --envs retail --worlds draw:1000-1019 --seeds 1 --rho 0.5 "
                         "--strategies paper,default,gepa")
WORLDS_DESIGN_COMMAND = ("python bench/search_efficiency.py --envs retail --worlds draw:0-7 --seeds 1 --rho 0.5 "
                         "--retail-tasks 64 --heldout-tasks 64 --strategies default[,gepa] --default <options>")

WORLDS_BUDGET_COMMAND = ("python bench/search_efficiency.py --envs retail --worlds draw:0-15 --seeds 1 --rho 0.5 "
                         "--retail-tasks 64 --heldout-tasks 64 --strategies default[,gepa] --max-rollouts 486 "
                         "[--default <options>] [--proposals K]")

WORLDS_BEFORE_COMMAND = ("python bench/search_efficiency.py --envs retail --worlds draw:1000-1019 --seeds 1 --rho 0.5 "
                         "--strategies default,gepa [--max-rollouts 973] --default tie_tasks=0")


def _summaries(jobs: list[dict]) -> list[dict]:
    from efficiency_report import summarize

    groups: dict[tuple, list[dict]] = {}
    for job in jobs:
        groups.setdefault((job["env"], job["profile"], job["rho"]), []).append(job)
    return [summarize(sorted(g, key=lambda j: j["seed"])) for _, g in sorted(groups.items())]


def worlds_report(w=None) -> str:
    """The report draws (never used to choose a design): each strategy's mean held-out ground-truth gain
    across the worlds [95% bootstrap CI across worlds] and mean rollouts, then #48's targets; then the
    same draws with the default budget-driven (`--max-rollouts`), when that run is in the file."""
    data = json.loads(WORLDS_FILE.read_text(encoding="utf-8"))
    report = data["report"]
    lines = [f"{len(report['jobs'])} drawn worlds (draws {report['draws']}), retail, rho 0.5, 1 search seed each; "
             f"default = {report['default']}{_borrowed(report)}", "", *_report_block(report)]
    if "budgeted" in data:
        b = data["budgeted"]
        lines += ["", f"The same draws with a budget, --max-rollouts {b['max_rollouts']} (the default's rounds from "
                      f"the budget; GEPA on what it spent){_borrowed(b)}", "", *_report_block(b)]
    return "```text\n" + "\n".join(lines) + "\n```"


def worlds_before(w=None) -> str:
    """The default before its last change (the gate's tie-break), on the same report draws."""
    data = json.loads(WORLDS_FILE.read_text(encoding="utf-8"))
    lines: list[str] = []
    for c in (data[k] for k in ("before_rounds", "before") if k in data):
        spend = f"--max-rollouts {c['max_rollouts']}" if c["max_rollouts"] else "6 rounds (no budget)"
        lines += ["" if lines else None, f"The default before the tie-break: {c['default']} on the report draws "
                  f"{c['draws']}, {spend} (GEPA on what it spent){_borrowed(c)}", "", *_report_block(c)]
    return "```text\n" + "\n".join(x for x in lines if x is not None) + "\n```"


def _borrowed(run: dict) -> str:
    return (f"; {', '.join(run['borrowed'])} rows from an earlier run of the same jobs (no option of the default "
            "moves them)" if run.get("borrowed") else "")


def _report_block(run: dict) -> list[str]:
    from efficiency_targets import mean_ci
    from world_targets import world_report

    summaries = _summaries(run["jobs"])
    lines = [f"{'strategy':10} {'held-out GT gain [95% CI across worlds]':>40} {'mean rollouts':>14}"]
    for name in run.get("strategies") or list(run["jobs"][0]["rows"]):
        gains = [s["strategies"][name]["mean"]["gain_heldout"] for s in summaries]
        rollouts = statistics.mean(s["strategies"][name]["mean"]["rollouts"] for s in summaries)
        mean, lo, hi = mean_ci(gains)
        lines.append(f"{name:10} {f'{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]':>40} {rollouts:>14.0f}")
    return lines + [""] + [line.strip() for line in world_report(summaries, "default") if not line.startswith("==")]


def worlds_design(w=None) -> str:
    """The design draws: each variant of the default on the same worlds and search seed, its mean held-out
    gain [95% CI across worlds], rollouts, and per world against the first variant (the reference)."""
    return _variants_table(json.loads(WORLDS_FILE.read_text(encoding="utf-8"))["design"]["variants"])


def worlds_budget(w=None) -> str:
    """The designs tried for the budget target, on the design draws with the default budget-driven
    (--max-rollouts): the same table as worlds-design, the shipped default first."""
    data = json.loads(WORLDS_FILE.read_text(encoding="utf-8"))["design_budget"]
    return (f"Draws {data['draws']}, retail, 64 search / 64 held-out tasks, rho 0.5, 1 search seed, "
            f"--max-rollouts {data['max_rollouts']}:\n\n" + _variants_table(data["variants"]))


def _variants_table(variants: dict) -> str:
    from efficiency_targets import mean_ci

    def gains(jobs):
        return {(j["profile"], j["seed"]): (j["rows"]["default"]["gain_heldout"], j["rows"]["default"]["rollouts"])
                for j in jobs}
    ref_name = next(iter(variants))
    ref = gains(variants[ref_name]["jobs"])
    gepa = {(j["profile"], j["seed"]): j["rows"]["gepa"]["gain_heldout"] for j in variants[ref_name]["jobs"]}
    lines = [f"| default with | worlds | held-out GT gain [95% CI across worlds] | mean rollouts | "
             f"per world vs {ref_name}: mean Δ [95% CI]; better / level / worse | behind GEPA by > 0.05 | "
             "harmful moves / rounds |", "|---|---|---|---|---|---|---|"]
    for name, v in variants.items():
        got = gains(v["jobs"])
        keys = sorted(got)
        mean, lo, hi = mean_ci([got[k][0] for k in keys])
        diff = [got[k][0] - ref[k][0] for k in keys]
        behind = sum(got[k][0] - gepa[k] < -0.05 for k in keys)
        harmful = sum(j["rows"]["default"]["harmful"] for j in v["jobs"])
        rounds = sum(j["rows"]["default"]["rounds"] for j in v["jobs"])
        lines.append(f"| `{v['options']}` ({name}) | {len(keys)} | {mean:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
                     f"{statistics.mean(got[k][1] for k in keys):.0f} | "
                     + ("— (the reference)" if name == ref_name else "{:+.3f} [{:+.3f}, {:+.3f}]; ".format(*mean_ci(diff))
                        + f"{sum(d > 0 for d in diff)} / {sum(d == 0 for d in diff)} / {sum(d < 0 for d in diff)}")
                     + f" | {behind}/{len(keys)} | {harmful}/{rounds} |")
    lines.append(f"| GEPA on {ref_name}'s rollouts | {len(gepa)} | " + "{:+.3f} [{:+.3f}, {:+.3f}]".format(
        *mean_ci([gepa[k] for k in sorted(gepa)])) + " | — | — | — | — |")
    return "\n".join(lines)


NULL_FILE = ROOT / "bench" / "null_default.json"  # bench/search_null.py's --out at the shipped default
NULL_BEFORE_FILE = ROOT / "bench" / "null_before_tie.json"  # its --out at the default before the tie-break
NULL_BEFORE_COMMAND = "python bench/search_null.py --seeds 20 --tie-tasks 0"
NULL_COMMAND = "python bench/search_null.py --seeds 20 (at the shipped default: --tie-tasks 8)"


def null_before(w=None) -> str:
    """The null test of the default before the tie-break (bench/null_before_tie.json), as null_test renders
    the shipped one."""
    return null_test(w, NULL_BEFORE_FILE)


def null_test(w=None, path: Path = NULL_FILE) -> str:
    """The null test's figures per rule, with n and Wilson 95% CIs, from its committed --out."""
    data = json.loads(path.read_text(encoding="utf-8"))
    rounds, searches = data["rounds"], data["searches"]
    settings = {"tie_tasks": 0, **data["settings"]}  # a file measured before the tie-break existed ran without it
    def share(k, n, ci):
        return f"{k}/{n} ({k / n:.3f}, {ci[0]:.3f}–{ci[1]:.3f})"
    lines = [f"{searches} replicates × {settings['rounds']} rounds, {3 * settings['sources']} toy tasks, "
             f"the default rule's options: " + ", ".join(f"{k} {settings[k]}" for k in ("gate", "design", "move_p", "tie_tasks")
                                                          if settings.get(k) is not None)
             + ("" if all(settings.get(k) is not None for k in ("gate", "design", "move_p")) else
                ", the others as shipped")]
    for name, r in data["rules"].items():
        lines.append(f"- `{name}`: a copy {'moved to' if name == 'default' else 'accepted'} in "
                     f"{share(r['accepted_rounds'], rounds, r['ci'])} rounds; ends on a copy in "
                     f"{share(r['ends_on_copy'], searches, r['ends_ci'])} searches; claim certified in "
                     f"{share(r['certified'], searches, r['certified_ci'])}; {r['rollouts_per_search']:.0f} rollouts "
                     "per search")
    g = data["gepa"]
    lines.append(f"- GEPA (every proposal a copy, the default's rollouts as its budget): ends on a copy in "
                 f"{share(g['ends_on_copy'], searches, g['ends_ci'])} searches; let {g['admitted']} of {g['proposed']} "
                 f"copies into its pool; claim certified in {share(g['certified'], searches, g['certified_ci'])}; "
                 f"{g['rollouts_per_search']:.0f} rollouts per search")
    return "\n".join(lines)
