"""What bench/search_efficiency.py keeps and shows of its jobs.

- `JobLog`: one JSON line per finished (suite, world, noise, seed) job in `<out>/jobs.jsonl`, written
  as each job ends, so a stopped invocation keeps every finished job and `--resume` re-pays none of
  them. Each line carries the settings that shape its figures; a line whose settings differ from the
  invocation's is refused (file, line, field), never mixed in.
- `summarize`: per (suite, world, noise) and strategy, the means over seeds and each as a ratio to
  the paper's protocol with a 95% bootstrap CI across seeds (seeds resampled in pairs); `report`
  prints it, `write_results` writes every summary to `<out>/results.json`.
- `markdown_rows`: the README's table rows from a `results.json` (`python bench/efficiency_report.py
  runs/bench-efficiency/results.json`), so its figures are copied from a file, not by hand; with
  `--plot` the frontier again.
- `--targets default` prints the default search's targets (bench/efficiency_targets.py), judged per
  (suite, world, noise) from the same figures, each met or missed on the means over seeds, CIs beside it.
- `frontier_plot`: `<out>/frontier.png`, ground-truth gain on the search split against rollouts, a
  panel per (suite, world, noise): each seed's search as a small dot, each strategy's mean as a
  marker with its 95% CI across seeds on both axes, and dotted lines at the paper's mean gain and
  a third of its mean rollouts (the issue's first target is the corner above and left of them).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.stats import bootstrap  # noqa: E402

from harnessx.errors import InputError  # noqa: E402
from efficiency_targets import mean_ci, target_report  # noqa: E402

FIELDS = ("rollouts", "gain_search", "gain_heldout", "per_1k")


def job_key(env: str, profile: str, rho: float, seed: int) -> str:
    return f"{env}/{profile}/rho {rho:g}/seed {seed}"


class JobLog:
    """Finished jobs, one JSON line each, with the settings they were run with."""

    def __init__(self, path: Path, settings: dict):
        self.path, self.settings = path, json.loads(json.dumps(settings))  # as it reads back (tuples as lists)

    def done(self) -> dict[str, dict]:
        """The jobs already in the log, by `job_key`. A last line cut short (a run killed mid-write) is
        removed, so its job runs again; any other unreadable line, or other settings, is an error."""
        if not self.path.exists():
            return {}
        lines = self.path.read_text(encoding="utf-8").splitlines()
        jobs = {}
        for number, line in enumerate(lines, 1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                if number == len(lines):  # dropped from the file too, so the next line starts clean
                    print(f"  {self.path}: line {number} is cut short; its job runs again", flush=True)
                    self.path.write_text("".join(f"{kept}\n" for kept in lines[:-1]), encoding="utf-8")
                    break
                raise InputError(f"{self.path}", f"line {number}", f"one JSON object per line ({exc})") from None
            for name, wanted in self.settings.items():
                if row.get("settings", {}).get(name) != wanted:
                    raise InputError(f"{self.path}", f"line {number}: settings.{name} = "
                                     f"{row.get('settings', {}).get(name)!r}",
                                     f"{wanted!r}, as this invocation asks; use another --out for other settings")
            jobs[job_key(row["env"], row["profile"], row["rho"], row["seed"])] = row
        return jobs

    def add(self, out: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({**out, "settings": self.settings}) + "\n")


ZERO = 1e-9  # below this a mean over seeds is taken as zero (gains are multiples of 1/(tasks x epochs))


def ratio_text(point: float, lo: float, hi: float, ci: bool = True) -> str:
    """A ratio and its CI as the tables print them: "n/a" for a ratio to a zero mean, "[n/a]" for a CI
    the bootstrap cannot give (one seed, or resamples whose reference mean is zero)."""
    text = f"{point:.2f}" if math.isfinite(point) else "n/a"
    if not ci:
        return text
    return f"{text} [{lo:.2f}, {hi:.2f}]" if math.isfinite(lo) and math.isfinite(hi) else f"{text} [n/a]"


def ratio_ci(x: list[float], y: list[float]) -> tuple[float, float, float]:
    """mean(x) / mean(y) and a 95% percentile bootstrap CI, seeds resampled in pairs."""
    # a mean of gains that cancel (+0.042 and -0.042 over seeds) is zero up to float rounding: no ratio
    point = statistics.mean(x) / statistics.mean(y) if abs(statistics.mean(y)) > ZERO else float("nan")
    if len(x) < 2 or not math.isfinite(point):
        return point, float("nan"), float("nan")
    with warnings.catch_warnings():  # a degenerate resample distribution gives a nan CI, printed as n/a
        warnings.simplefilter("ignore")
        res = bootstrap((np.array(x), np.array(y)),
                        lambda a, b: np.mean(a) / np.mean(b) if abs(np.mean(b)) > ZERO else np.nan,
                        paired=True, vectorized=False, n_resamples=2000, method="percentile", random_state=0)
    return point, float(res.confidence_interval.low), float(res.confidence_interval.high)


def summarize(group: list[dict]) -> dict:
    """One (suite, world, noise): its jobs (one per seed, sorted) into per-strategy means and ratios."""
    first = group[0]
    rows = {name: [job["rows"][name] for job in group] for name in first["rows"]}
    per_seed = {name: {**{k: [d[k] for d in data] for k in data[0]},
                       "per_1k": [1000 * d["gain_search"] / d["rollouts"] for d in data]} for name, data in rows.items()}
    reference = "paper" if "paper" in per_seed else next(iter(per_seed))
    strategies = {}
    for name, values in per_seed.items():
        harmful, accepted, rounds = sum(values["harmful"]), sum(values["accepted"]), sum(values["rounds"])
        strategies[name] = {
            "per_seed": {k: values[k] for k in FIELDS + ("accepted", "harmful")},
            "mean": {k: statistics.mean(values[k]) for k in FIELDS},
            "ci": {k: mean_ci(values[k])[1:] for k in ("rollouts", "gain_search")},
            f"ratio_to_{reference}": {k: ratio_ci(values[k], per_seed[reference][k]) for k in FIELDS},
            "harmful": harmful, "accepted": accepted,
            "rounds": rounds if name != "gepa" else None,  # GEPA has no rounds: its lineage's steps only
        }
    return {"env": first["env"], "profile": first["profile"], "rho": first["rho"], "sizes": first["sizes"],
            "seeds": [job["seed"] for job in group], "r0": first["r0"], "wall": sum(job["wall"] for job in group),
            "reference": reference, "strategies": strategies}


def report(summary: dict, shape: str) -> None:
    """Print one summary as the bench's table (`shape`: "R0 + rounds x proposals, ground truth ...")."""
    noise = "common random numbers" if summary["rho"] == 1 else f"pairing partial, rho {summary['rho']:g}"
    ref, sizes = summary["reference"], summary["sizes"]
    print(f"\n== world sim/{summary['profile']} ({noise}) on {summary['env']} ({sizes['search']} search / {sizes['heldout']} "
          f"held-out tasks), {shape}, {len(summary['seeds'])} seeds: R0 joint {summary['r0'][0]:.3f} search / "
          f"{summary['r0'][1]:.3f} held-out; cpu-wall {summary['wall']:.0f}s")
    print(f"  {'strategy':11} {'rollouts':>9} {'GT gain search':>15} {'GT gain held-out':>17} {'gain/1k':>8} "
          f"{'harmful/accepted':>17} {'harmful rounds':>15}   ratios to {ref} [95% CI]: rollouts | gain search | "
          f"gain held-out | gain/1k")
    for name, s in summary["strategies"].items():
        text = " | ".join(ratio_text(*r) for r in s[f"ratio_to_{ref}"].values())
        harm_rounds = f"{s['harmful']}/{s['rounds']} = {s['harmful'] / s['rounds']:.3f}" if s["rounds"] else "n/a"
        m, harm = s["mean"], f"{s['harmful']}/{s['accepted']}"  # GEPA: steps of its selected candidate's lineage
        print(f"  {name:11} {m['rollouts']:9.0f} {m['gain_search']:+15.3f} {m['gain_heldout']:+17.3f} "
              f"{m['per_1k']:8.3f} {harm:>17} {harm_rounds:>15}   {text}")


def write_results(summaries: list[dict], settings: dict, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"settings": settings, "groups": summaries}, indent=1), encoding="utf-8")
    return path


def frontier_plot(summaries: list[dict], path: Path) -> Path:
    """Gain against rollouts per strategy, one panel per (suite, world, noise), two panels a row."""
    summaries = sorted(summaries, key=lambda s: (s["env"], s["rho"], s["profile"]))
    cols = min(len(summaries), 2)
    rows = math.ceil(len(summaries) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows), squeeze=False)
    colors = dict(zip(("paper", "default", "paired", "gepa", "oracle", "composite", "fresh", "unseen"), plt.cm.tab10.colors))
    for ax, summary in zip(axes.flat, summaries):
        for name, s in summary["strategies"].items():
            color = colors.get(name, "gray")
            ax.scatter(s["per_seed"]["rollouts"], s["per_seed"]["gain_search"], s=9, color=color, alpha=0.35)
            (x, y), (xlo, xhi), (ylo, yhi) = ((s["mean"][k] for k in ("rollouts", "gain_search")),
                                              s["ci"]["rollouts"], s["ci"]["gain_search"])
            xerr = [[max(x - xlo, 0.0)], [max(xhi - x, 0.0)]] if math.isfinite(xlo) else None  # float noise of
            yerr = [[max(y - ylo, 0.0)], [max(yhi - y, 0.0)]] if math.isfinite(ylo) else None  # equal seeds' bounds
            ax.errorbar([x], [y], xerr=xerr, yerr=yerr, fmt="o", color=color, capsize=2,
                        label=f"{name} (harmful {s['harmful']}/{s['accepted']} accepted)")
        if summary["reference"] == "paper":  # the first target: the paper's gain at 1/3 of its rollouts
            paper = summary["strategies"]["paper"]["mean"]
            ax.axvline(paper["rollouts"] / 3, color="tab:blue", ls=":", lw=0.9)
            ax.axhline(paper["gain_search"], color="tab:blue", ls=":", lw=0.9)
        noise = "CRN" if summary["rho"] == 1 else f"rho {summary['rho']:g}"
        ax.set_title(f"{summary['env']} {summary['sizes']['search']} tasks, {summary['profile']}, {noise}", fontsize=9)
        ax.set_xlabel("rollouts per search")
        ax.set_ylabel("ground-truth joint gain (search split)")
        ax.axhline(0, color="lightgray", lw=0.8, zorder=0)
        ax.legend(fontsize=7, title=f"n = {len(summary['seeds'])} seeds", title_fontsize=7)
    for ax in list(axes.flat)[len(summaries):]:
        ax.set_visible(False)
    fig.text(0.01, 0.005, "simulated agent: the numbers test the search, not a model\n"
             "bars: 95% CI across seeds; dotted: the paper's gain and 1/3 of its rollouts", fontsize=7, color="dimgray")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


NAMES = {"paper": "paper (greedy)", "gepa": "GEPA"}


def _with_ratio(value: str, ratio: list, reference: bool) -> str:
    return f"{value} ({ratio_text(*ratio, ci=not reference)})"


def markdown_rows(summaries: list[dict]) -> list[str]:
    """| world | noise | strategy | rollouts (ratio) | GT gain search (ratio) | GT gain held-out (ratio) |
    gain / 1k (ratio) | harmful / accepted | harmful rounds |, a row per group and strategy."""
    rows = []
    for summary in summaries:
        noise = "ρ 1 (CRN)" if summary["rho"] == 1 else f"ρ {summary['rho']:g}"
        ref = summary["reference"]
        for name, s in summary["strategies"].items():
            ratio, m, own = s[f"ratio_to_{ref}"], s["mean"], name == ref
            cells = [_with_ratio(f"{m['rollouts']:.0f}", ratio["rollouts"], own),
                     _with_ratio(f"{m['gain_search']:+.3f}", ratio["gain_search"], own),
                     _with_ratio(f"{m['gain_heldout']:+.3f}", ratio["gain_heldout"], own),
                     _with_ratio(f"{m['per_1k']:.3f}", ratio["per_1k"], own),
                     f"{s['harmful']}/{s['accepted']}", f"{s['harmful']}/{s['rounds']}" if s["rounds"] else "n/a"]
            rows.append(f"| {summary['profile']} | {noise} | {NAMES.get(name, name)} | " + " | ".join(cells) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="The search-efficiency bench's tables from its results.json.")
    parser.add_argument("results", type=Path, help="a results.json written by bench/search_efficiency.py")
    parser.add_argument("--plot", type=Path, help="also draw the frontier plot to this PNG")
    parser.add_argument("--targets", metavar="STRATEGY", help="also judge the default search's targets for this "
                        "strategy (bench/efficiency_targets.py), e.g. default")
    parser.add_argument("--null", type=Path, help="bench/search_null.py's results.json: judge the null target too")
    args = parser.parse_args()
    try:
        data = json.loads(args.results.read_text(encoding="utf-8"))
        summaries = data["groups"]
        if not isinstance(summaries, list) or not all(isinstance(g, dict) and "strategies" in g for g in summaries):
            raise TypeError("field 'groups': expected a list of groups, each with its 'strategies'")
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        parser.error(f"{args.results}: expected the results.json of bench/search_efficiency.py ({exc})")
    known = sorted({name for group in summaries for name in group["strategies"]})
    if args.targets and args.targets not in known:
        parser.error(f"--targets: {args.targets!r} is not a strategy of {args.results} (it has {', '.join(known)})")
    for line in markdown_rows(summaries):
        print(line)
    if args.targets:
        print()
        null = None
        if args.null is not None:
            try:
                null = json.loads(args.null.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                parser.error(f"{args.null}: expected the results.json of bench/search_null.py ({exc})")
        for line in target_report(summaries, args.targets, null):
            print(line)
    if args.plot:
        print(f"plot: {frontier_plot(summaries, args.plot)}")


if __name__ == "__main__":
    main()
