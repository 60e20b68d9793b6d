"""Search efficiency on the simulator: the paper's protocol, GEPA and the shipped default side by side (and others).

- default:    the shipped default rule (`--accept default` = `explore`, harnessx/search/explore.py): a screen
              of every proposal on a few blocked–feasible pairs, the leaders promoted with futility stops,
              a move on modest evidence (`--default design=halving,move_p=0.3` etc.);
- fresh:      the default with each moved-to incumbent compared over fresh seeds, never on the rollouts
              that selected it (bench/fresh_incumbent.py; measured, not shipped; takes --default's options);
- unseen:     the default with each move decided on the tasks the round's screen did not see
              (bench/unseen_move.py; measured, not shipped; takes --default's options);
- prior:      the default as it was before budget-driven breadth and group proposals (#48): the bandit
              without group slots, design promote, screen 16, no gate (measured, not shipped; ignores --default);
- paper:      `greedy` acceptance, every proposal fully evaluated (R0 + rounds x proposals);
- paired:     paired test + Holm + racing, same proposer and shape, 1 rollout per task;
- gepa:       gepa.optimize through the HarnessX adapter with the default's rollouts (equal rollouts);
- oracle:     a bound, not a rule (`--strategies ...,oracle`): each round the truly best proposal is
              picked for free (ground truth) and confirmed on the whole split by the one-sided paired
              sign-flip test at alpha. A rule that confirms one edit per round at alpha selects no
              better and tests on no more tasks, so it says which targets such rules can reach;
- composite:  the oracle with one more proposal per round, the composite of the rules proposer's edits,
              so a round may confirm several edits at once (the bound of that way past one edit per round).

Per world (`sim/baseline` = today's, `sim/harmful` = a third or more of the edits hurt) and suite,
over several search seeds: rollouts; ground-truth joint gain of the selected harness over R0 on
the search split and on the held-out split (the simulator's Monte Carlo, fresh seeds, common
random numbers); gain per 1k rollouts; false accepts (accepted edits whose ground-truth joint on
the search split is below their parent's by more than 2 SE; for GEPA, which has no rounds, the
parent-to-child steps of its selected candidate's lineage). Each as a ratio to the paper's protocol
with a 95% bootstrap CI across seeds (seeds resampled in pairs). Suites are cut to a stratified
subset (--retail-tasks / --terminal-tasks / --heldout-tasks per split, half blocked; retail's whole
128 / 64 by default) so one invocation fits a shared 2-core machine.

    python bench/search_efficiency.py [--envs retail,terminal] [--worlds baseline,harmful] [--rho 0.5,1] [--seeds 5]
        [--strategies paper,gepa,default]   (bare: paper, GEPA and the default)
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.agent.sampling import epoch_seeds
from harnessx.envs.registry import get_suite
from harnessx.errors import InputError
from harnessx.ground_truth import ground_truth_async
from harnessx.harness import Harness
from harnessx.models.client import ModelClient
from harnessx.search import Arena, Search, SearchConfig, get_objective, load_space
from harnessx.search.acceptance import AcceptanceRule, Paired, Verdict
from harnessx.search.rules import make_acceptance
from harnessx.search.proposers import Proposal, Proposer, RulesProposer
from harnessx.search.explore import Explore, ExploreSettings
from harnessx.search.proposers.bandit import BanditProposer
from harnessx.search.veto import p_harmed, vetoes
from harnessx.search.gepa import optimize_with_gepa
from harnessx.sim.pairing import with_rho
from harnessx.sim.worlds import parse_worlds, world_model

from efficiency_report import JobLog, frontier_plot, job_key, report, summarize, write_results
from efficiency_targets import target_report
from world_targets import world_report
from proposer_reach import first_reach, targets as reach_targets
from efficiency_args import CANDIDATES, DESIGNS, parse, settings

RULES = {"paper": "greedy", "default": "default", "paired": "paired"}


class Subset:
    """The first n tasks of each split (sorted ids, half blocked, half feasible) of a suite."""

    def __init__(self, suite, sizes: dict[str, int]):
        self.suite, self.sizes, self.name = suite, sizes, suite.name

    def tasks(self, split: str | None = None):
        if split is None:
            return [t for s in self.sizes for t in self.tasks(s)]
        tasks = sorted(self.suite.tasks(split), key=lambda t: t.id)
        n = self.sizes.get(split, len(tasks))
        blocked, feasible = [t for t in tasks if not t.feasible], [t for t in tasks if t.feasible]
        return blocked[: n // 2] + feasible[: n - n // 2]

    def make_env(self):
        return self.suite.make_env()


class Truth:
    """Ground truth (joint, per epoch) of harnesses on one split, memoised by hash."""

    def __init__(self, suite, profile: str, split: str, epochs: int):
        self.suite, self.profile, self.split, self.epochs = suite, profile, split, epochs
        self.memo: dict[str, list[float]] = {}

    async def per_epoch_async(self, harness: Harness) -> list[float]:
        if harness.hash not in self.memo:
            self.memo[harness.hash] = [(await ground_truth_async(harness, self.suite, self.profile, epochs=1, split=self.split,
                                                                 seed0=50_000 + e)).joint.mean for e in range(self.epochs)]
        return self.memo[harness.hash]

    def per_epoch(self, harness: Harness) -> list[float]:
        return self.memo[harness.hash] if harness.hash in self.memo else asyncio.run(self.per_epoch_async(harness))

    def value(self, harness: Harness) -> float:
        return statistics.mean(self.per_epoch(harness))

    async def value_async(self, harness: Harness) -> float:
        return statistics.mean(await self.per_epoch_async(harness))

    def harmful(self, child: Harness, parent: Harness) -> bool:
        d = [a - b for a, b in zip(self.per_epoch(child), self.per_epoch(parent))]
        se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else 0.0
        return statistics.mean(d) < -max(2 * se, 1e-9)


class Oracle(AcceptanceRule):
    """The bound: of the round's proposals not yet tested against this incumbent (a retest would meet
    the same tasks and seeds), the one with the largest ground-truth gain is chosen at no rollout cost
    (the others get a one-task evaluation, for the ledger) and, if that gain is positive, tested on the
    whole split (incumbent rollouts reused) by the one-sided paired sign-flip test at alpha, with the
    `joint` stratum veto. Selection uses no search data, so the test needs no correction."""

    name = "oracle"

    def __init__(self, truth: Truth, alpha: float = 0.05):
        self.truth, self.alpha, self.tested = truth, alpha, set()

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        key, strata = arena.objective.value_key, arena.objective.strata
        base = await self.truth.value_async(incumbent)
        gains = [await self.truth.value_async(p) - base
                 if (incumbent.hash, p.hash) not in self.tested else -math.inf for p in proposals]
        best = max(range(len(proposals)), key=lambda i: (gains[i], -i))
        inc = await arena.evaluate(incumbent)
        verdicts = []
        for i, proposal in enumerate(proposals):
            if i != best or gains[i] <= 0:
                ev = await arena.evaluate(proposal, 1)
                why = "tested before" if gains[i] == -math.inf else f"GT gain {gains[i]:+.3f}"
                verdicts.append(Verdict(ev, f"1/{len(arena.tasks)} tasks", reason=f"not chosen: {why}",
                                        undecided=gains[i] > 0))  # the proposer may bring it back
                continue
            self.tested.add((incumbent.hash, proposal.hash))
            ev = await arena.evaluate(proposal)
            paired = Paired.of(ev, inc, key)
            mean, p = paired.test()
            accepted = p < self.alpha and not vetoes(paired, strata, p_harmed(self.alpha))
            verdicts.append(Verdict(ev, "full", accepted=accepted, mean_diff=mean, p_value=p, undecided=not accepted and mean > 0,
                                    reason=f"GT gain {gains[i]:+.3f}; mean Δ {mean:+.3f}, p = {p:.4f}"))
        return verdicts


def compose(space, incumbent: Harness, harnesses: list[Harness]) -> Harness:
    """The incumbent with every edit of `harnesses` (a clause per library, switch values), the earlier
    harness winning where two change the same library or switch."""
    out, taken = incumbent, set()
    before = incumbent.switches.model_dump()
    held = {name: library.current(incumbent) for name, library in space.libraries.items()}
    for harness in harnesses:
        for name, library in space.libraries.items():
            clause = library.current(harness)
            if clause is not None and (held[name] is None or clause.id != held[name].id) and name not in taken:
                out, taken = library.apply(out, clause), taken | {name}
        changed = {k: v for k, v in harness.switches.model_dump().items() if before[k] != v and k not in taken}
        if changed:
            out, taken = out.with_switches(**changed), taken | set(changed)
    return out


class Composing(Proposer):
    """The rules proposer plus one more proposal: the composite of its k edits (for `composite`, the
    oracle that may confirm several edits of a round at once)."""

    name = "rules+composite"

    def __init__(self):
        self.rules = RulesProposer()

    def propose(self, ctx, k: int) -> list[Proposal]:
        singles = self.rules.propose(ctx, k)
        whole = compose(ctx.space, ctx.incumbent, [p.harness for p in singles])
        blocked = ctx.seen_hashes() - ctx.resumable_hashes()
        if len(singles) < 2 or whole.hash in {p.harness.hash for p in singles} | blocked:
            return singles
        edit = " + ".join(p.edit for p in singles)
        return singles + [Proposal(whole.renamed(f"R{ctx.round}", edit=edit), edit, "all of this round's edits at once",
                                   "composite")]


def run_search(rule: str, seed: int, suite, args, tmp: Path, cache: Path, model: str, truth: Truth | None = None):
    # the bounds bring their own rule object (its name goes into the run's config record)
    config = SearchConfig.of(objective="joint", env=suite.name, model=model, seed=seed, epochs=args.epochs,
                          proposer="bandit" if rule in CANDIDATES else "rules",  # the shipped default's own
                          accept=rule if rule in RULES.values() else "greedy", proposals=args.proposals, runs_dir=str(tmp), name=f"{rule}-{seed}",
                          tracking_uri=None, **budget(rule, args))
    options = args.default if rule in CANDIDATES else {}
    proposer = Composing() if rule == "composite" else None
    if rule in ("oracle", "composite"):
        acceptance = Oracle(truth)
    elif rule == "prior":
        acceptance, proposer = Explore(ExploreSettings(design="promote", screen=16, gate=0)), BanditProposer(pair_share=0)
    elif rule in DESIGNS:
        acceptance = DESIGNS[rule](ExploreSettings(**options))
    else:  # a shipped rule by name; None: the search's own default
        acceptance = make_acceptance(rule, **options) if options else None
    search = Search(config, suite=suite, acceptance=acceptance, proposer=proposer)
    search.dir.prepare(search.config_record(), resume=False)
    run_dir = search.dir.path
    (run_dir / "rollouts").symlink_to(cache, target_is_directory=True)  # rollouts are shared, counts are not
    result = asyncio.run(search.run(resume=True))  # the prepared, empty run dir: starts at R0
    harnesses = {row["hash"]: Harness.load(run_dir / "harnesses" / f"{row['hash']}.yaml") for row in result.ledger}
    accepted = [(harnesses[r["hash"]], harnesses[r["parent"]]) for r in result.ledger if r["accepted"] and r["parent"]]
    proposed = [(r["round"], harnesses[r["hash"]]) for r in result.ledger if r["parent"]]
    return result.summary["rollouts"], result.selected.harness, accepted, result.summary["rounds_done"], proposed


def budget(rule: str, args) -> dict:
    """The default's (and its design variants') budget: with --max-rollouts the budget sets its rounds,
    as a user's `--max-rollouts N` does; every other strategy keeps --rounds."""
    if args.max_rollouts is not None and rule in ("default", *DESIGNS):
        return {"rounds": None, "max_rollouts": args.max_rollouts}
    return {"rounds": args.rounds}


def run_gepa(budget: int, seed: int, suite, cache: Path, model: str, epochs: int = 1):
    runner = Runner(suite, ModelClient(model), RolloutCache(cache), concurrency=16)
    arena = Arena(runner, suite.tasks("search"), get_objective("joint"), epoch_seeds(seed, epochs), order_seed=seed)
    result, harnesses = optimize_with_gepa(arena, load_space().initial(), load_space(), budget, seed=seed)
    lineage, i = [], result.best_idx  # the selected candidate's ancestry: GEPA's accepted edits
    while i and result.parents[i] and result.parents[i][0] is not None:
        lineage.append((harnesses[i], harnesses[result.parents[i][0]]))
        i = result.parents[i][0]
    proposed = [(n, h) for n, h in enumerate(harnesses) if n]  # no rounds: the n-th candidate
    return arena.rollouts, harnesses[result.best_idx], lineage, proposed


def job(env: str, world: str, rho: float, seed: int, args) -> dict:
    """All strategies for one (suite, world, noise, search seed): the measured figures per strategy.

    The searches meet `sim/<profile>` at pairing rho (1 = common random numbers, no rollout noise
    between harnesses; < 1: harnessx/sim/pairing.py); ground truth is the world's expectation, the
    same at every rho, estimated under common random numbers (paired differences with a small SE)."""
    started = time.monotonic()
    profile = world_model(world)  # a drawn world (draw:N) is registered in this worker
    model = with_rho(profile, rho)
    sizes = {"search": args.tasks[env], "heldout": args.heldout[env]}
    suite = Subset(get_suite(env), sizes)
    search_truth, held_truth = (Truth(suite, profile, s, args.gt_epochs) for s in ("search", "heldout"))
    space = load_space()
    r0 = space.initial()
    goal = reach_targets(space, r0, search_truth, profile) if args.reach else None
    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        cache.mkdir()
        for name in args.strategies:
            if name == "gepa":
                spent, chosen, accepted, proposed = run_gepa(rows["default"]["rollouts"], seed, suite, cache, model, args.epochs)
                rounds = args.rounds
            else:
                spent, chosen, accepted, rounds, proposed = run_search(RULES.get(name, name), seed, suite, args, Path(tmp) / name,
                                                             cache, model, search_truth)
            harmful = sum(search_truth.harmful(c, p) for c, p in accepted)
            rows[name] = {"rollouts": spent, "gain_search": search_truth.value(chosen) - search_truth.value(r0),
                          "gain_heldout": held_truth.value(chosen) - held_truth.value(r0),
                          "accepted": len(accepted), "harmful": harmful, "rounds": max(rounds, 1)}
            if goal is not None:
                rows[name]["reach"] = {"single": first_reach(space, r0, proposed, (goal.best_single,)),
                                       "pair": first_reach(space, r0, proposed, goal.best_pair) if goal.best_pair else None,
                                       "looks": len(proposed)}
    out = {"env": env, "profile": world, "rho": rho, "seed": seed, "sizes": sizes, "rows": rows,
           "wall": time.monotonic() - started, "r0": (search_truth.value(r0), held_truth.value(r0))}
    if goal is not None:
        out["reach_targets"] = {"single": goal.best_single.key, "single_gain": goal.single_gain,
                                "pair": [e.key for e in goal.best_pair] if goal.best_pair else None,
                                "pair_gain": goal.pair_gain, "pair_alone": goal.pair_alone}
        print(f"  reach {env}/{profile}/seed {seed}: best single {goal.best_single.key} ({goal.single_gain:+.3f}), best "
              f"pair {out['reach_targets']['pair']} ({goal.pair_gain:+.3f}, alone {goal.pair_alone:+.3f}); " + "; ".join(
                  f"{n} single {r['reach']['single']} pair {r['reach']['pair']} of {r['reach']['looks']} looks"
                  for n, r in rows.items()), flush=True)
    print(f"  done {env}/{profile}/rho {rho:g}/seed {seed} in {out['wall']:.0f}s: " + "; ".join(
        f"{n} {r['rollouts']} rollouts, gain {r['gain_search']:+.3f}/{r['gain_heldout']:+.3f}, "
        f"harmful {r['harmful']}/{r['accepted']}" for n, r in rows.items()), flush=True)
    return out


def main() -> None:
    parser, args = parse()
    started = time.monotonic()
    rhos = [float(r) for r in args.rho.split(",")]
    try:
        worlds = parse_worlds(args.worlds)
    except ValueError as exc:
        parser.error(f"--worlds: {exc}")
    jobs = [(e, w, r, seed) for e in args.envs.split(",") for r in rhos for w in worlds
            for seed in range(args.first_seed, args.first_seed + args.seeds)]
    jobs.sort(key=lambda j: (j[0] == "terminal", j[2] == 1.0, j[3]))  # the fast suite and the noisy worlds first
    out_dir = Path(args.out)
    log = JobLog(out_dir / "jobs.jsonl", settings(args))
    if log.path.exists() and not args.resume:
        parser.error(f"{log.path} exists: --resume to reuse its finished jobs, or another --out")
    try:
        wanted = {job_key(*j) for j in jobs}
        done = {k: v for k, v in log.done().items() if k in wanted}
    except InputError as exc:
        parser.error(str(exc))
    todo = [j for j in jobs if job_key(*j) not in done]
    print(f"search efficiency: {len(jobs)} (suite, world, seed) jobs ({len(done)} already in {log.path}), "
          f"{args.workers} worker(s), cores {os.cpu_count()}, objective joint, simulated agent "
          f"(numbers test the search, not a model)", flush=True)
    groups: dict[tuple[str, str, float], list[dict]] = {}
    summaries: list[dict] = []
    shape = (f"R0 + {args.rounds} x {args.proposals}" + (f", {args.epochs} seeds per task" if args.epochs > 1 else "")
             + f", ground truth {args.gt_epochs} epochs")

    def collect(out: dict) -> None:  # a (suite, world, noise) table as soon as its seeds are in
        group = groups.setdefault((out["env"], out["profile"], out["rho"]), [])
        group.append(out)
        if len(group) == args.seeds:
            summaries.append(summarize(sorted(group, key=lambda o: o["seed"])))
            report(summaries[-1], shape)
            write_results(summaries, settings(args), out_dir / "results.json")
            sys.stdout.flush()

    for out in done.values():
        collect(out)
    with ProcessPoolExecutor(args.workers) as pool:
        futures = [pool.submit(job, e, w, r, seed, args) for e, w, r, seed in todo]
        for future in as_completed(futures):
            out = future.result()
            log.add(out)
            collect(out)
    if summaries:
        print(f"\n  results: {out_dir / 'results.json'}, plot: {frontier_plot(summaries, out_dir / 'frontier.png')}")
    for candidate in (c for c in CANDIDATES if c in args.strategies) if summaries and "paper" in args.strategies else ():
        print(f"\n== targets for {candidate} (on the means over seeds)")
        print("\n".join(target_report(summaries, candidate)))
    across = [line for c in ("default", "prior") if c in args.strategies for line in world_report(summaries, c)]
    if across:
        print("\n" + "\n".join(across))
    print(f"\n  wall {time.monotonic() - started:.0f}s")

if __name__ == "__main__":
    main()
