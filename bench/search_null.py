"""Null test of the acceptance rules: every proposal is a copy of the incumbent.

A copy differs only by a neutral revision note (no cue of the simulated agent), so it behaves
exactly like the incumbent. The simulator's default pairing (common random numbers) would give a
copy the incumbent's very outcomes, so the null runs on the profile's `pairing: text` variant:
each copy draws its own rollouts, as a real model's would. Any acceptance is a false accept. Per
replicate (rollout seed): R0 + 8 rounds x 3 copies, one rollout per task, the paper's shape;
`greedy`, `paired` and `default` (the shipped default, `explore`: moves on modest evidence,
harnessx/search/explore.py) judge the same copies on a shared rollout cache. GEPA runs too, with a
proposer of copies and `default`'s rollouts of that replicate as its budget: it has no rounds, so
its figure is per search (does it end on a copy?),
next to the same figure of the three rules, and how many copies it let into its candidate pool.
Each search ends with the certified claim a search makes (harnessx/search/certify.py): its selection
against R0 on a held-out toy split of the same size, paired, one-sided at `--alpha`; the summary
gives per rule and for GEPA the share of searches whose claim is certified (every one is false).

    python bench/search_null.py [--seeds 20] [--sources 10] [--model sim/baseline] [--out runs/bench-null/results.json]

Every figure, with its n and Wilson 95% CI, and each replicate's counts also go to `--out` as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from harnessx.stats import wilson

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.envs.toy import ToySuite
from harnessx.harness import Harness
from harnessx.models.client import ModelClient
from harnessx.search import Arena, Greedy, PairedRacing, get_objective, load_space
from harnessx.search.certify import ClaimRun, certify
from harnessx.search.explore import Explore
from harnessx.search.gepa import HarnessAdapter, optimize_with_gepa
from harnessx.sim import load_profile, register_profile

RULES = ("greedy", "paired", "default")


def text_paired(model: str) -> str:
    """`sim/<p>-text`: the profile with draws seeded on the harness text (every copy re-draws)."""
    profile = load_profile(model.removeprefix("sim/"))
    return register_profile(profile.model_copy(update={"name": f"{profile.name}-text", "pairing": "text"}))


def copies(incumbent: Harness, round_no: int, k: int) -> list[Harness]:
    text = incumbent.text("system_prompt").rstrip()
    return [incumbent.with_component("system_prompt", f"{text}\n(Revision note {round_no}.{slot}.)\n")
            for slot in range(k)]


class CopyAdapter(HarnessAdapter):
    """GEPA's adapter with a proposer of copies: each proposal adds a neutral revision note."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.proposed = 0

    def _propose(self, candidate, reflective_dataset, components_to_update):
        self.proposed += 1
        return {"system_prompt": f"{candidate['system_prompt'].rstrip()}\n(Revision note g{self.proposed}.)\n"}


async def certified(runner: Runner, seed: int, args, selected: Harness) -> int:
    """1 when the search's claim (selected vs R0 on the held-out split) is certified at --alpha."""
    objective = get_objective(args.objective)
    claim = ClaimRun(runner, objective, objective.tasks(runner.suite.tasks("heldout")), [seed], args.alpha)
    return int((await certify(claim, "heldout", load_space().initial(), selected))["certified"])


def null_suite(args) -> ToySuite:
    return ToySuite(n_sources=args.sources, heldout_sources=args.sources)


async def replicate(seed: int, args, cache_dir: str) -> dict[str, dict[str, int]]:
    suite = null_suite(args)
    runner = Runner(suite, ModelClient(text_paired(args.model)), RolloutCache(cache_dir), concurrency=16)
    out = {}
    for name, rule in (("greedy", Greedy()), ("paired", PairedRacing()),
                       ("default", Explore(**{k: v for k, v in (("gate", args.gate), ("move_p", args.move_p),
                                                                ("design", getattr(args, "design", None)),
                                                                ("tie_tasks", getattr(args, "tie_tasks", None)))
                                              if v is not None}))):
        arena = Arena(runner, suite.tasks("search"), get_objective(args.objective), [seed], order_seed=seed)
        incumbent, hits = load_space().initial(), 0
        for round_no in range(1, args.rounds + 1):
            if name == "default":  # as the search loop does (the others' figures are kept as they were measured)
                arena.round = round_no
            # as many copies as the rule judges a round (the default with a gate: more, cheaper looks)
            verdicts = await rule.judge(incumbent, copies(incumbent, round_no, rule.looks(args.proposals)), arena)
            winner = next((v.evaluation.harness for v in verdicts if v.accepted), None)
            if winner is not None:
                incumbent, hits = winner, hits + 1
        out[name] = {"rounds": hits, "ends_on_copy": int(hits > 0), "rollouts": arena.rollouts,
                          "certified": await certified(runner, seed, args, incumbent)}
    return out


def gepa_null(seed: int, args, cache_dir: str, budget: int) -> dict[str, int]:
    """GEPA from R0 whose every proposal is a copy; its selection is a copy when best_idx != 0."""
    suite = null_suite(args)
    runner = Runner(suite, ModelClient(text_paired(args.model)), RolloutCache(cache_dir), concurrency=16)
    arena = Arena(runner, suite.tasks("search"), get_objective(args.objective), [seed], order_seed=seed)
    space, start = load_space(), load_space().initial()
    adapter = CopyAdapter(arena, start, space, offline=True, seed=seed)
    result, harnesses = optimize_with_gepa(arena, start, space, budget, seed=seed, adapter=adapter)
    claim = asyncio.run(certified(runner, seed, args, harnesses[result.best_idx]))
    return {"ends_on_copy": int(result.best_idx != 0), "admitted": len(result.candidates) - 1,
            "proposed": adapter.proposed, "rollouts": arena.rollouts, "certified": claim}


def run_replicate(job: tuple) -> dict[str, dict[str, int]]:
    seed, args, cache_dir = job
    out = asyncio.run(replicate(seed, args, cache_dir))
    out["gepa"] = gepa_null(seed, args, cache_dir, out["default"]["rollouts"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--sources", type=int, default=10, help="toy sources: 3 tasks each (n = 3 x sources)")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--proposals", type=int, default=3)
    parser.add_argument("--objective", default="joint")
    parser.add_argument("--model", default="sim/baseline")
    parser.add_argument("--alpha", type=float, default=0.05, help="the final claim's one-sided level")
    parser.add_argument("--design", default=None, help="the default rule's design (promote, halving; default: the shipped one)")
    parser.add_argument("--move-p", type=float, default=None,
                        help="the default rule's move bar (harnessx/search/explore.py; default: the shipped one)")
    parser.add_argument("--tie-tasks", type=int, default=None,
                        help="the default rule's gate tie-break (harnessx/search/explore.py; default: the shipped one)")
    parser.add_argument("--gate", type=int, default=None,
                        help="the default rule's minibatch gate (harnessx/search/explore.py; default: the shipped one)")
    parser.add_argument("--workers", type=int, default=2, help="replicates run in this many processes")
    parser.add_argument("--out", default="runs/bench-null/results.json", help="every figure and replicate, as JSON")
    args = parser.parse_args()
    started = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory() as tmp, ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(run_replicate, [(seed, args, f"{tmp}/{seed}") for seed in range(args.seeds)]))
    summary = summarize(results, args)
    print(f"null test: {args.seeds} replicates x {args.rounds} rounds x {args.proposals} copies, "
          f"n = {3 * args.sources} toy tasks, 1 rollout each, objective {args.objective}, model {args.model} "
          f"(simulated, pairing: text)")
    for name in RULES:
        r = summary["rules"][name]
        print(f"  {name:10} accepted a copy in {r['accepted_rounds']}/{summary['rounds']} rounds = {r['rate']:.3f} "
              f"(95% CI {r['ci'][0]:.3f}-{r['ci'][1]:.3f}); ends on a copy in {r['ends_on_copy']}/{summary['searches']} "
              f"searches = {r['ends_rate']:.2f} ({r['ends_ci'][0]:.2f}-{r['ends_ci'][1]:.2f}); "
              f"{r['rollouts_per_search']:.0f} rollouts per search"
              + f"; {claimed(r, summary)}")
    g = summary["gepa"]
    print(f"  {'gepa':10} ends on a copy in {g['ends_on_copy']}/{summary['searches']} searches = {g['ends_rate']:.2f} "
          f"({g['ends_ci'][0]:.2f}-{g['ends_ci'][1]:.2f}); let {g['admitted']}/{g['proposed']} proposed copies into its "
          f"pool; {g['rollouts_per_search']:.0f} rollouts per search (default's as its budget); {claimed(g, summary)}")
    ratio = summary["rules"]["greedy"]["accepted_rounds"] / max(summary["rules"]["paired"]["accepted_rounds"], 1)
    print(f"  false-accept ratio greedy/paired = {ratio:.1f}x (target <= 0.05 of rounds)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**summary, "replicates": results}, indent=1), encoding="utf-8")
    print(f"  results: {out}")
    print(f"  wall {time.monotonic() - started:.0f}s")


def claimed(figures: dict, summary: dict) -> str:
    return (f"claim certified in {figures['certified']}/{summary['searches']} searches = {figures['certified_rate']:.2f} "
            f"({figures['certified_ci'][0]:.2f}-{figures['certified_ci'][1]:.2f}; target <= 0.05)")


def summarize(results: list[dict], args) -> dict:
    """Totals over replicates: per rule the rounds that accepted a copy and the searches that end on
    one (each with its Wilson 95% CI and n), rollouts per search; GEPA per search only."""
    rounds, searches = args.seeds * args.rounds, args.seeds
    total = {name: {k: sum(r[name][k] for r in results) for k in results[0][name]} for name in results[0]}

    def ends(t: dict) -> dict:
        return {"ends_on_copy": t["ends_on_copy"], "ends_rate": t["ends_on_copy"] / searches,
                "ends_ci": list(wilson(t["ends_on_copy"], searches)), "rollouts_per_search": t["rollouts"] / searches,
                "certified": t["certified"], "certified_rate": t["certified"] / searches,
                "certified_ci": list(wilson(t["certified"], searches))}

    rules = {name: {"accepted_rounds": total[name]["rounds"], "rate": total[name]["rounds"] / rounds,
                    "ci": list(wilson(total[name]["rounds"], rounds)), **ends(total[name])} for name in RULES}
    gepa = {**ends(total["gepa"]), "admitted": total["gepa"]["admitted"], "proposed": total["gepa"]["proposed"]}
    settings = {k: v for k, v in vars(args).items() if k not in ("out", "workers")}
    return {"settings": settings, "rounds": rounds, "searches": searches, "rules": rules, "gepa": gepa}


if __name__ == "__main__":
    main()
