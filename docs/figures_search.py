"""The search benchmarks' figures that are measured once and committed (their runs take an hour).

`bench/terminal_power.py measure` writes every terminal outcome it measured to
`bench/terminal_power.json`; the renderers here recompute the page's figures from that file with the
bench's own (seeded) analysis, so `docs/figures.py --check` compares them like any deterministic
block, without re-running the hour of rollouts. `bench/terminal_search.json` holds the
`bench/search_efficiency.py` results the page quotes for terminal (the `results.json` it wrote).
"""

from __future__ import annotations

import json
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


def terminal_search(w=None) -> str:
    """The default's searches on 20 and on all 107 terminal search tasks, judged on the full held-out
    split: held-out ground-truth gain per seed, and its share of the best measured edit's gain there."""
    import terminal_power as bench

    runs = json.loads(SEARCH_FILE.read_text(encoding="utf-8"))
    measured = {r["world"]: bench.Outcomes.of(r) for r in json.loads(POWER_FILE.read_text(encoding="utf-8"))["records"]}
    lines = ["| world | search tasks | rollouts (mean) | held-out GT gain per seed | mean | share of the best single edit's "
             "held-out gain | share of the best measured harness's |", "|" + "---|" * 7]
    for label in ("before", "after"):
        for group in runs.get(label, {}).get("groups", []):
            data = measured[group["profile"]]
            best = max(data.edits(), key=lambda k: (data.mean_gain(k, "search"), k))
            top = max(data.edits() + data.pairs, key=lambda k: (data.mean_gain(k, "search"), k))
            s = group["strategies"]["default"]
            gains, mean = s["per_seed"]["gain_heldout"], s["mean"]["gain_heldout"]
            n = min(group["sizes"]["search"], len(data.feasible["search"]))  # a size past a stratum takes all of it
            lines.append(f"| {group['profile']} | {n} | {s['mean']['rollouts']:.0f} | "
                         f"{', '.join(f'{g:+.3f}' for g in gains)} (seeds {', '.join(map(str, group['seeds']))}) | "
                         f"{mean:+.3f} | {mean / data.mean_gain(best, 'heldout'):.2f} of {data.mean_gain(best, 'heldout'):+.3f} | "
                         f"{mean / data.mean_gain(top, 'heldout'):.2f} of {data.mean_gain(top, 'heldout'):+.3f} |")
    return "\n".join(lines)
